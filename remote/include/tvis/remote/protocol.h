// protocol.h: the agent protocol spoken over `tvis agent --stdio`'s
// stdin/stdout (an ssh session's channel, or a pipe in tests).
//
// Every message is one frame, little-endian:
//   u32 body_length   (bytes after this field: 5 + payload; at most kMaxFrameBody)
//   u32 request_id    (chosen by the client; a reply carries its request's id)
//   u8  type          (MessageType)
//   payload
// The client may send many requests before reading any reply (pipelining);
// the agent answers each exactly once, in the order it received them.
//
// Before its first frame the agent writes kSyncLine. Whatever arrives before
// it (a login banner or a message from the user's shell startup files on
// stdout, common on clusters) is skipped by the client; without it within
// kMaxPreamble bytes the peer is not an agent and the client says what it
// printed instead.
//
// The conversation then opens with Hello (id 0) both ways: the client sends
// kMagic + its u32 version, the agent answers kMagic + its own version. Each
// side refuses a peer whose magic is wrong (the remote printed something that
// is not an agent: a login banner on stdout, an old tvis's usage text) or
// whose version differs from kProtocolVersion; the agent then answers Error
// and exits, the client reports both versions.
//
// Requests and their Ok payloads (Error's payload is a u8 ErrorKind
// (run_store.h), then one UTF-8 line):
//   List  ()                                -> JSON text: run_catalog.h's array
//   Stat  (path)                            -> u64 size, i64 mtime_ms
//   Read  (u64 offset, u32 length, path)    -> u64 file_size, then exactly `length` bytes
// A reply longer than kMaxPartBody (a List of tens of thousands of runs) is
// sent as Part frames carrying its first bytes, in order, then the Ok frame
// with the rest; the client joins them, up to kMaxReplyBytes in all.
// `path` is relative to the agent's root (run_store.h) and is checked there:
// `..`, absolute paths and symlinks that leave the root are refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/remote/run_store.h"

namespace tvis::remote {

inline constexpr uint32_t kProtocolVersion = 2;  // 2: Error kinds, Part frames
inline constexpr char kMagic[8] = {'t', 'v', 'i', 's', 'a', 'g', 'n', 't'};
inline constexpr char kSyncLine[] = "\n<tvis agent protocol>\n";
/// Bytes of other output the client skips before kSyncLine at most.
inline constexpr size_t kMaxPreamble = 64 * 1024;
/// Largest frame body accepted (a Read reply of kMaxReadLength plus headers).
inline constexpr uint32_t kMaxFrameBody = 17u << 20;
/// Largest length one Read may ask for; larger ranges are split by the client.
inline constexpr uint32_t kMaxReadLength = 16u << 20;
/// Largest payload of one Ok or Part frame; a longer reply is split into Parts.
inline constexpr uint32_t kMaxPartBody = 16u << 20;
/// Largest reply the client assembles from Parts (a List); more is an error.
inline constexpr size_t kMaxReplyBytes = 256u << 20;

enum class MessageType : uint8_t {
  Hello = 1,
  List = 2,
  Stat = 3,
  Read = 4,
  Ok = 0x80,     // a successful reply (to any request but Hello)
  Part = 0x81,   // the first bytes of a long reply; its Ok follows
  Error = 0xEE,  // a failed reply: payload is the message
};

struct Frame {
  uint32_t id = 0;
  MessageType type = MessageType::Error;
  std::string payload;  // bytes, not necessarily text
};

/// The frame's bytes, length prefix included.
std::string encode_frame(const Frame& frame);

// Little-endian fields inside payloads.
void put_u32(std::string& out, uint32_t v);
void put_u64(std::string& out, uint64_t v);
/// Reads a field at `*at` and advances it; false when the payload is too short.
bool get_u32(const std::string& in, size_t* at, uint32_t* v);
bool get_u64(const std::string& in, size_t* at, uint64_t* v);

/// Error's payload: the kind, then the message.
std::string error_payload(ErrorKind kind, const std::string& message);
/// An Error payload's kind and message (an unknown kind reads as Failed).
void parse_error(const std::string& payload, ErrorKind* kind, std::string* message);

/// Request and reply payloads; each parser is false when the payload is short or malformed.
std::string encode_read_request(uint64_t offset, uint32_t length, const std::string& path);
bool parse_read_request(const std::string& payload, uint64_t* offset, uint32_t* length, std::string* path);
bool parse_stat_reply(const std::string& payload, FileStat* stat);
/// The file size, and the bytes, which must be exactly `length`.
bool parse_read_reply(const std::string& payload, uint32_t length, ReadResult* out);

/// The frame body's fields (after the u32 length): false when it is shorter than 5 bytes.
bool decode_frame_body(const std::string& body, Frame* frame);

/// Hello's payload for `version`.
std::string hello_payload(uint32_t version);
/// The version in a Hello payload; false when the magic is wrong.
bool parse_hello(const std::string& payload, uint32_t* version);

}  // namespace tvis::remote
