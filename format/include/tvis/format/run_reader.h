// run_reader.h: the read half of the container. Compiles for wasm: no
// exceptions, no threads, no file APIs; every byte comes through ByteSource.
//
// Opening reads only the file header (16 B), the trailer (32 B) and the
// footer chunk, so it costs three small reads whatever the file's size. When
// the trailer is missing or invalid (a killed writer), or the footer's header
// or payload checksum is bad, open() rebuilds the index by scanning chunk
// headers from offset 16 (one 56-byte read each), keeps every chunk whose
// header is intact and whose payload lies inside the file, stops at the first
// that is not, and reports what it recovered and where and why it stopped in
// `recovery_notice()`; `complete()` is then false.
//
// What is refused rather than recovered: a file without the magic (NotARun),
// a newer major version (NewerVersion), a footer whose checksum is right but
// whose content is inconsistent (Corrupt), and any checksummed header whose
// size fields exceed the limits in container.h or what its stored bytes can
// decode to (chunk_limits.h; TooLarge): those are not what a killed writer
// leaves behind.
//
// Live runs (a run still being written): grow() rechecks the source's size
// (ByteSource::recheck_size) and, when the file grew, reads only what is new:
// the trailer first (the writer finished: the footer's index, which must
// list this reader's chunks unchanged, and the run is complete), else the
// chunk headers after this reader's last chunk, from that chunk on (its
// header is read again and must be the same). It hands back a new reader
// over the same source with this reader's chunks and the new ones, ordinals
// unchanged, or this reader itself when the size did not change; this reader
// stays valid. A file smaller than this reader saw (Truncated) or one whose
// chunks are not this reader's (Corrupt) is not grown: the message says the
// run file shrank or was replaced.
//
// Chunks are fetched on demand with read_chunk(): one read of the chunk,
// payload checksum verified, zstd-decoded, unshuffled, and (for FlatBuffer
// kinds) verified against schema/recording.fbs before it is handed out. An
// XOR delta chunk (container.h: ChunkEncoding) is read with its base, and
// that with its own, and handed out as the body they make: every caller sees
// plain bodies. A base that is missing, not earlier, not tensor_data, of
// another size, or a chain deeper than kMaxXorDeltaChain is Corrupt.
//
// Failure: every callback receives a Status naming what failed, which chunk
// (ordinal and kind) and at which byte offset. No size read from the file is
// used to allocate before it is checked against the file size, the limits in
// container.h and what the chunk's stored bytes can decode to
// (chunk_limits.h); a chunk's buffer is allocated only after its zstd frame's
// headers, and for a chunk far larger decoded than stored its FlatBuffer
// root, have been checked.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tvis/format/byte_source.h"
#include "tvis/format/container.h"
#include "tvis/format/error.h"

namespace tvis::schema {
struct Chunk;
}

namespace tvis::format {

/// One decoded chunk. For every kind but Index, `root()` is the verified
/// FlatBuffer; it points into `bytes` and lives as long as this object.
class DecodedChunk {
 public:
  DecodedChunk() = default;
  DecodedChunk(ChunkEntry entry, Bytes bytes) : entry_(entry), bytes_(std::move(bytes)) {}
  const ChunkEntry& entry() const { return entry_; }
  const Bytes& bytes() const { return bytes_; }
  const schema::Chunk* root() const;

 private:
  ChunkEntry entry_{};
  Bytes bytes_;
};

class RunReader;
using OpenDone = std::function<void(Result<std::shared_ptr<RunReader>>)>;
using ChunkDone = std::function<void(Result<std::shared_ptr<const DecodedChunk>>)>;

class RunReader : public std::enable_shared_from_this<RunReader> {
 public:
  /// Opens `source`; calls `done` once with the reader or the reason it is not
  /// a readable run (NotARun, NewerVersion, ...).
  static void open(std::shared_ptr<ByteSource> source, OpenDone done);

  /// For synchronous sources (files, memory): open and return at once.
  /// Returns ErrorCode::Io if the source did not answer synchronously.
  static Result<std::shared_ptr<RunReader>> open_sync(std::shared_ptr<ByteSource> source);

  const FileHeader& header() const { return header_; }
  /// Chunks in file order (ordinal i at index i), without the footer.
  const std::vector<ChunkEntry>& chunks() const { return chunks_; }
  /// True when the trailer and footer were intact.
  bool complete() const { return complete_; }
  /// Empty for a complete file; otherwise what the scan recovered, e.g.
  /// "footer missing: recovered 41 chunks (3.2 MB) by scanning; stopped at
  /// offset 3355443: chunk extends past end of file".
  const std::string& recovery_notice() const { return recovery_notice_; }
  ByteSource& source() { return *source_; }
  /// The source's size when this reader's index was built.
  uint64_t size_seen() const { return size_seen_; }

  /// A live run: the run as the source holds it now (see the header
  /// comment). On a complete reader it answers this reader at once.
  /// `cancelled`, when given, is asked before each read after the size:
  /// once it answers true the grow reads no further and answers
  /// ErrorCode::Cancelled (the viewer closing a run whose recheck crosses a
  /// slow link waits for one read, not for the whole scan).
  void grow(OpenDone done, std::function<bool()> cancelled = {});

  /// Fetches, verifies and decodes chunk `ordinal`.
  void read_chunk(uint32_t ordinal, ChunkDone done);
  /// Synchronous variant for synchronous sources.
  Result<std::shared_ptr<const DecodedChunk>> read_chunk_sync(uint32_t ordinal);

  /// Fetches and verifies chunk `ordinal` without keeping it, for a caller
  /// that does not read its body (inspect's tensor values): see
  /// verify_chunk_payload(). `done` gets the first failure or ok.
  void verify_chunk(uint32_t ordinal, std::function<void(Status)> done);
  Status verify_chunk_sync(uint32_t ordinal);

 private:
  /// Reads chunk `ordinal`'s stored bytes (its header, then its payload) after
  /// the size checks, and checks the stored header against the index entry;
  /// `then` gets the entry and the bytes, or the first failure.
  using StoredChunkDone = std::function<void(const ChunkEntry&, Result<Bytes>)>;
  void read_stored_chunk(uint32_t ordinal, StoredChunkDone then);
  /// read_chunk() of a chunk `depth` XOR delta bases below the one asked for.
  void read_chunk_in_chain(uint32_t ordinal, int depth, ChunkDone done);

  std::shared_ptr<ByteSource> source_;
  FileHeader header_;
  std::vector<ChunkEntry> chunks_;
  bool complete_ = false;
  std::string recovery_notice_;
  uint64_t size_seen_ = 0;

  friend class RunOpener;
};

/// Decodes a chunk payload (compressed bytes as stored after its header) for
/// `entry`: size limits (chunk_limits.h), checksum, the zstd frame's header
/// and block headers, and for a chunk that would decode to far more than it
/// stores a pass through a bounded window with its FlatBuffer root checked,
/// all before its buffer is allocated; then zstd, unshuffle, FlatBuffer
/// verification. Exposed for the fuzzer and tests.
Result<DecodedChunk> decode_chunk_payload(const ChunkEntry& entry, const uint8_t* data, uint64_t size);

/// Verifies a chunk payload as decode_chunk_payload() does while allocating
/// at most one zstd window: a chunk of up to kTableChunkFreeSize decoded
/// bytes is decoded and verified whole and dropped; a larger one is decoded
/// through the window, every byte of its frame, and must come to raw_size
/// bytes whose FlatBuffer root, vtable and body type are right (the rest of
/// its FlatBuffer, in a TensorData chunk the values, is not walked).
Status verify_chunk_payload(const ChunkEntry& entry, const uint8_t* data, uint64_t size);

}  // namespace tvis::format
