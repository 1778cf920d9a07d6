// container.h: the byte layout of a tvis run file (container version 1.x).
//
//   [FileHeader 16 B]
//   [ChunkHeader 56 B][payload: zstd frame of compressed_size B] ...  (chunks)
//   [ChunkHeader 56 B][payload]                                       (footer: kind Index)
//   [Trailer 32 B]
//
// All integers are little-endian. Every chunk is independent: its payload is
// one zstd frame (with its content size) that decodes to raw_size bytes,
// optionally byte-shuffled (see `filter`), whose xxh64 (seed 0) over the
// *compressed* bytes is `payload_xxh64`. The chunk header carries its own checksum so a recovery
// scan can trust a header without reading its payload.
//
// The footer is a chunk of kind Index whose raw body is
//   u64 entry_count, then entry_count IndexEntry records (64 B each).
// The trailer locates it. A file without a valid trailer (the writer was
// killed) is read by scanning chunk headers from the first one.
//
// Versioning: a reader accepts any minor version of its major and every
// older major; a newer major is refused naming both versions. Fields are
// only ever appended. Major 2 added chunk encodings (ChunkEncoding: a
// TensorData chunk stored as an XOR delta against an earlier one); a major 1
// file has none (the byte was reserved, 0) and reads as before.
#pragma once

#include <cstdint>

namespace tvis::format {

inline constexpr char kFileMagic[8] = {'\x89', 'T', 'V', 'I', 'S', '\r', '\n', '\x1a'};
inline constexpr char kTrailerMagic[8] = {'T', 'V', 'I', 'S', 'E', 'N', 'D', '\n'};
inline constexpr uint32_t kChunkMagic = 0x4B434754u;  // "TGCK" little-endian
inline constexpr uint16_t kVersionMajor = 2;
inline constexpr uint16_t kVersionMinor = 0;

inline constexpr uint64_t kFileHeaderSize = 16;
inline constexpr uint64_t kChunkHeaderSize = 56;
inline constexpr uint64_t kTrailerSize = 32;
inline constexpr uint64_t kIndexEntrySize = 64;

// Hard limits a reader enforces before allocating anything; chunk_limits.h
// bounds a chunk's decoded size further by what its stored bytes can hold.
// (A libFuzzer build keeps them: the fuzzer's malloc limit is what catches a
// reader that allocates what a file merely claims.)
inline constexpr uint64_t kMaxChunkRawSize = 1ull << 30;         // 1 GiB decoded
inline constexpr uint64_t kMaxChunkCompressedSize = 1ull << 30;  // 1 GiB on disk
inline constexpr uint64_t kMaxIndexEntries = 1ull << 24;         // 16 M chunks

/// Filters applied to a chunk's raw bytes before compression. ShuffleN
/// stores byte j of every N-byte element in plane j (planes back to back);
/// the raw_size % N bytes left over follow the planes unchanged.
enum class ChunkFilter : uint8_t {
  None = 0,
  Shuffle2 = 2,  // byte planes of 2-byte elements (f16, bf16)
  Shuffle4 = 4,  // byte planes of 4-byte elements (f32, i32)
  Shuffle8 = 8,  // byte planes of 8-byte elements (f64, i64)
};

/// How a chunk's raw bytes (after its filter is undone) give its body.
/// XorDelta (TensorData only; format 2): the raw bytes are
///   [delta: base_size bytes][kXorDeltaTrailerSize B: u32 kXorDeltaMagic,
///    u32 base ordinal, u64 0]
/// and the body is delta XOR the base chunk's body (decoded the same way),
/// byte by byte. The base is an earlier TensorData chunk (ordinal below this
/// one's, so chains end) whose body is base_size = raw_size - 16 bytes; a
/// reader follows at most kMaxXorDeltaChain bases. The recorder stores a step
/// boundary's weights this way against the previous boundary's (bits that
/// change little XOR to mostly zero bytes, which zstd then removes).
enum class ChunkEncoding : uint8_t {
  Plain = 0,
  XorDelta = 1,
};
inline constexpr uint32_t kXorDeltaMagic = 0x44585654u;  // "TVXD" little-endian
inline constexpr uint64_t kXorDeltaTrailerSize = 16;
inline constexpr int kMaxXorDeltaChain = 64;

//   offset size field
//        0    8 magic = kFileMagic
//        8    2 version_major
//       10    2 version_minor
//       12    4 flags (0; reserved)
struct FileHeader {
  uint16_t version_major = kVersionMajor;
  uint16_t version_minor = kVersionMinor;
  uint32_t flags = 0;
};

// What the container knows about a chunk; the same in its ChunkHeader and in
// its footer IndexEntry. Steps and events are inclusive ranges; a chunk with
// no step or event uses first = last = -1 (steps) / UINT64_MAX (events).
struct ChunkInfo {
  uint16_t kind = 0;          // ChunkKind (chunk_kind.h)
  ChunkFilter filter = ChunkFilter::None;
  ChunkEncoding encoding = ChunkEncoding::Plain;  // format 2; 0 in a major 1 file
  int32_t step_first = -1;
  int32_t step_last = -1;
  uint64_t event_first = UINT64_MAX;
  uint64_t event_last = UINT64_MAX;
};

//   ChunkHeader (56 B)
//        0    4 kChunkMagic
//        4    2 kind
//        6    1 filter
//        7    1 encoding (ChunkEncoding; reserved, 0, in format 1)
//        8    4 step_first (i32)
//       12    4 step_last (i32)
//       16    8 event_first
//       24    8 event_last
//       32    4 compressed_size
//       36    4 raw_size
//       40    8 payload_xxh64 (seed 0, over the compressed payload)
//       48    4 header_xxh32 over bytes 0..47 (seed 0)
//       52    4 ordinal (position among chunks, from 0)
//
//   IndexEntry (64 B): ChunkInfo fields as in ChunkHeader bytes 4..31 (encoding
//       at byte 3), then
//       32    8 offset of the ChunkHeader in the file
//       40    4 compressed_size
//       44    4 raw_size
//       48    8 payload_xxh64
//       56    4 ordinal (position among chunks, from 0)
//       60    4 reserved (0)
//
//   Trailer (32 B)
//        0    8 footer offset (of its ChunkHeader)
//        8    8 footer total size (header + payload)
//       16    4 chunk count (not counting the footer)
//       20    4 xxh32 of bytes 0..19
//       24    8 kTrailerMagic
struct ChunkEntry {
  ChunkInfo info;
  uint32_t ordinal = 0;
  uint64_t offset = 0;             // of the chunk header
  uint32_t compressed_size = 0;
  uint32_t raw_size = 0;
  uint64_t payload_xxh64 = 0;
};

}  // namespace tvis::format
