// chunk_encoder.h: turns one raw chunk into its bytes on disk (write half).
//
// encode() applies the chunk's filter, compresses with zstd into one frame
// that records its content size, checksums the frame and prepends the 56-byte
// chunk header (container.h). One ZSTD_CCtx is reused for every chunk, so an
// encoder is cheap per call but not thread-safe: one per writer thread.
#pragma once

#include <cstdint>
#include <memory>

#include "tvis/format/byte_source.h"
#include "tvis/format/container.h"
#include "tvis/format/error.h"

namespace tvis::format {

class ChunkEncoder {
 public:
  explicit ChunkEncoder(int zstd_level = 1);
  ~ChunkEncoder();
  ChunkEncoder(const ChunkEncoder&) = delete;
  ChunkEncoder& operator=(const ChunkEncoder&) = delete;

  /// Encodes `size` raw bytes as chunk `ordinal`. On success `out` holds the
  /// header followed by the payload and `entry` describes it (entry->offset
  /// is left 0 for the caller to set). Fails with TooLarge when the raw or
  /// compressed size exceeds the limits in container.h, Corrupt for an
  /// unknown filter.
  Status encode(const ChunkInfo& info, uint32_t ordinal, const uint8_t* raw, uint64_t size, Bytes* out,
                ChunkEntry* entry);
  /// The same at another zstd level for this chunk (nothing in the file
  /// records the level; every frame decodes alike).
  Status encode(const ChunkInfo& info, uint32_t ordinal, const uint8_t* raw, uint64_t size, Bytes* out,
                ChunkEntry* entry, int zstd_level);

  /// Seconds spent in filter + zstd + checksum since construction.
  double busy_seconds() const { return busy_seconds_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  int level_;
  int cctx_level_;  // the level the context is set to now
  double busy_seconds_ = 0;
};

}  // namespace tvis::format
