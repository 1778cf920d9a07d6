#include "tvis/format/chunk_limits.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/container_codec.h"

namespace tvis::format {

namespace {
bool is_records(uint16_t kind) {
  return kind != uint16_t(ChunkKind::TensorData) && kind != uint16_t(ChunkKind::Index);
}
}  // namespace

uint64_t max_decoded_size(uint16_t kind, uint64_t compressed_size) {
  uint64_t limit = std::min(kMaxChunkRawSize, compressed_size * kZstdMaxRatio);
  if (is_records(kind)) limit = std::min(limit, std::max(kTableChunkFreeSize, compressed_size * kTableChunkMaxRatio));
  return limit;
}

uint64_t max_index_size(uint64_t footer_offset) {
  const uint64_t room = footer_offset > kFileHeaderSize ? footer_offset - kFileHeaderSize : 0;
  return 8 + kIndexEntrySize * std::min(kMaxIndexEntries, room / kChunkHeaderSize);
}

Status check_decoded_size(const ChunkEntry& e) {
  char buf[320];
  if (e.compressed_size > kMaxChunkCompressedSize || e.raw_size > kMaxChunkRawSize) {
    std::snprintf(buf, sizeof buf, "%s: size field too large (%u bytes stored, %u decoded; limit %" PRIu64 ")",
                  describe_chunk(e).c_str(), e.compressed_size, e.raw_size, kMaxChunkRawSize);
    return Status::error(ErrorCode::TooLarge, buf);
  }
  if (e.info.kind == uint16_t(ChunkKind::Index)) return Status::ok();  // bounded by the file: max_index_size()
  if (uint64_t(e.raw_size) > uint64_t(e.compressed_size) * kZstdMaxRatio) {
    std::snprintf(buf, sizeof buf,
                  "%s: declares %s decoded from %s stored, more than any zstd frame decodes to "
                  "(%" PRIu64 "x its stored size)",
                  describe_chunk(e).c_str(), format_bytes(e.raw_size).c_str(), format_bytes(e.compressed_size).c_str(),
                  kZstdMaxRatio);
    return Status::error(ErrorCode::TooLarge, buf);
  }
  const uint64_t limit = max_decoded_size(e.info.kind, e.compressed_size);
  if (e.raw_size > limit) {
    std::snprintf(buf, sizeof buf,
                  "%s: declares %s decoded from %s stored; a chunk of records decodes to at most "
                  "%" PRIu64 " MiB or %" PRIu64 "x its stored size (%s)",
                  describe_chunk(e).c_str(), format_bytes(e.raw_size).c_str(), format_bytes(e.compressed_size).c_str(),
                  kTableChunkFreeSize >> 20, kTableChunkMaxRatio, format_bytes(limit).c_str());
    return Status::error(ErrorCode::TooLarge, buf);
  }
  return Status::ok();
}

}  // namespace tvis::format
