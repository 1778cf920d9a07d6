#include "tvis/format/chunk_encoder.h"

#include <xxhash.h>
#include <zstd.h>

#include <chrono>

#include "shuffle.h"
#include "tvis/format/container_codec.h"

namespace tvis::format {

struct ChunkEncoder::State {
  ZSTD_CCtx* cctx = nullptr;
  Bytes shuffled;  // scratch for filtered bytes, reused between chunks
  ~State() { ZSTD_freeCCtx(cctx); }
};

ChunkEncoder::ChunkEncoder(int zstd_level) : state_(new State), level_(zstd_level), cctx_level_(zstd_level) {
  state_->cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(state_->cctx, ZSTD_c_compressionLevel, level_);
  ZSTD_CCtx_setParameter(state_->cctx, ZSTD_c_contentSizeFlag, 1);
  ZSTD_CCtx_setParameter(state_->cctx, ZSTD_c_checksumFlag, 0);  // xxh64 of the frame is ours
}

ChunkEncoder::~ChunkEncoder() = default;

Status ChunkEncoder::encode(const ChunkInfo& info, uint32_t ordinal, const uint8_t* raw, uint64_t size, Bytes* out,
                            ChunkEntry* entry) {
  return encode(info, ordinal, raw, size, out, entry, level_);
}

Status ChunkEncoder::encode(const ChunkInfo& info, uint32_t ordinal, const uint8_t* raw, uint64_t size, Bytes* out,
                            ChunkEntry* entry, int zstd_level) {
  if (zstd_level != cctx_level_) {
    ZSTD_CCtx_setParameter(state_->cctx, ZSTD_c_compressionLevel, zstd_level);
    cctx_level_ = zstd_level;
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (size > kMaxChunkRawSize)
    return Status::error(ErrorCode::TooLarge, "chunk of " + std::to_string(size) + " bytes exceeds the 1 GiB limit");
  size_t elem = 1;
  switch (info.filter) {
    case ChunkFilter::None: break;
    case ChunkFilter::Shuffle2: elem = 2; break;
    case ChunkFilter::Shuffle4: elem = 4; break;
    case ChunkFilter::Shuffle8: elem = 8; break;
    default: return Status::error(ErrorCode::Corrupt, "unknown chunk filter " + std::to_string(int(info.filter)));
  }
  const uint8_t* src = raw;
  if (elem > 1) {
    if (state_->shuffled.size() < size) state_->shuffled.resize(size);
    shuffle_bytes(raw, state_->shuffled.data(), size_t(size), elem);
    src = state_->shuffled.data();
  }
  const size_t bound = ZSTD_compressBound(size_t(size));
  out->resize(kChunkHeaderSize + bound);
  const size_t n = ZSTD_compress2(state_->cctx, out->data() + kChunkHeaderSize, bound, src, size_t(size));
  if (ZSTD_isError(n)) return Status::error(ErrorCode::Io, std::string("zstd: ") + ZSTD_getErrorName(n));
  if (n > kMaxChunkCompressedSize)
    return Status::error(ErrorCode::TooLarge, "compressed chunk exceeds the 1 GiB limit");
  out->resize(kChunkHeaderSize + n);

  ChunkEntry e;
  e.info = info;
  e.ordinal = ordinal;
  e.compressed_size = uint32_t(n);
  e.raw_size = uint32_t(size);
  e.payload_xxh64 = XXH64(out->data() + kChunkHeaderSize, n, 0);
  encode_chunk_header(e, out->data());
  *entry = e;
  busy_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return Status::ok();
}

}  // namespace tvis::format
