#include "chunk_stream.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/chunk_limits.h"
#include "tvis/format/container_codec.h"
#include "tvis/schema/recording_generated.h"

namespace tvis::format {

namespace {

size_t element_size(ChunkFilter f) {
  switch (f) {
    case ChunkFilter::Shuffle2: return 2;
    case ChunkFilter::Shuffle4: return 4;
    case ChunkFilter::Shuffle8: return 8;
    default: return 1;
  }
}

uint32_t u32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
uint16_t u16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

// Where the unshuffled head's bytes sit in the decoded (shuffled) stream.
struct HeadMap {
  uint64_t raw = 0, head = 0, elem = 1, n = 0;  // n: whole elements
  // The decoded stream's bytes [at, at + len) land in head[] here.
  void take(const uint8_t* p, uint64_t at, uint64_t len, uint8_t* head_out) const {
    if (elem == 1) {
      if (at < head) std::memcpy(head_out + at, p, size_t(std::min(len, head - at)));
      return;
    }
    const uint64_t planes_end = elem * n;
    for (uint64_t j = 0; j < elem; ++j) {  // plane j, element i -> head[i * elem + j]
      const uint64_t lo = std::max(at, j * n), hi = std::min(at + len, j * n + n);
      for (uint64_t pos = lo; pos < hi; ++pos) {
        const uint64_t k = (pos - j * n) * elem + j;
        if (k >= head) break;
        head_out[k] = p[pos - at];
      }
    }
    const uint64_t lo = std::max(at, planes_end), hi = std::min(at + len, head);  // the unshuffled tail
    for (uint64_t pos = lo; pos < hi; ++pos) head_out[pos] = p[pos - at];
  }
  // The decoded bytes needed before the head is complete.
  uint64_t needed() const {
    if (elem == 1 || head > elem * n) return head;
    return (elem - 1) * n + (head + elem - 1) / elem;
  }
};

std::string head_problem(const uint8_t* h, uint64_t have, uint64_t raw, uint8_t expected) {
  if (raw < 8) return "too short for a FlatBuffer";
  const uint64_t root = u32(h);
  if (root < 8 || root % 4 != 0 || root + 4 > raw) return "its root offset points outside the buffer";
  if (std::memcmp(h + 4, schema::ChunkIdentifier(), 4) != 0) return "no TVR1 file identifier";
  if (root + 4 > have) return {};
  const int64_t vt = int64_t(root) - int64_t(int32_t(u32(h + root)));
  if (vt < 0 || vt % 2 != 0 || uint64_t(vt) + 4 > raw) return "its root table's vtable lies outside the buffer";
  if (uint64_t(vt) + 4 > have) return {};
  const uint16_t vsize = u16(h + vt), tsize = u16(h + vt + 2);
  if (vsize < 4 || vsize % 2 != 0 || uint64_t(vt) + vsize > raw || tsize < 4 || root + tsize > raw)
    return "its root table's vtable is malformed";
  uint8_t body = 0;
  if (vsize >= 6 && uint64_t(vt) + 6 <= have) {
    const uint16_t at = u16(h + vt + 4);  // field 0: body_type
    if (at != 0) {
      if (at >= tsize) return "its body type lies outside the root table";
      if (root + at >= have) return {};
      body = h[root + at];
    }
  } else if (vsize >= 6) {
    return {};
  }
  if (expected != 0 && body != expected)
    return std::string("its body is ") + (body == 0 ? "empty" : schema::EnumNameBody(schema::Body(body))) +
           ", expected " + schema::EnumNameBody(schema::Body(expected));
  return {};
}

}  // namespace

Status stream_check_chunk(const ChunkEntry& e, const uint8_t* data, uint64_t size, uint8_t expected_body,
                          bool whole) {
  auto bad = [&](const std::string& what) {
    return Status::error(ErrorCode::Corrupt, describe_chunk(e) + ": " + what);
  };
  HeadMap map;
  map.raw = e.raw_size;
  map.head = std::min<uint64_t>(e.raw_size, kHeadBytes);
  map.elem = element_size(e.info.filter);
  map.n = map.raw / map.elem;
  std::vector<uint8_t> head(size_t(map.head), 0);

  ZSTD_DStream* ds = ZSTD_createDStream();
  if (!ds) return bad("zstd: out of memory");
  ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, 27);  // kMaxZstdWindow
  std::vector<uint8_t> window(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{data, size_t(size), 0};
  uint64_t produced = 0;
  const uint64_t stop = whole ? UINT64_MAX : map.needed();
  size_t ret = 1;
  while (produced < stop) {
    ZSTD_outBuffer out{window.data(), window.size(), 0};
    ret = ZSTD_decompressStream(ds, &out, &in);
    if (ZSTD_isError(ret)) {
      ZSTD_freeDStream(ds);
      return bad(std::string("zstd: ") + ZSTD_getErrorName(ret));
    }
    if (out.pos > 0) {
      if (produced + out.pos > e.raw_size) break;
      map.take(window.data(), produced, out.pos, head.data());
      produced += out.pos;
    }
    if (ret == 0) break;                              // the frame is complete
    if (out.pos == 0 && in.pos == in.size) break;     // no more input
  }
  ZSTD_freeDStream(ds);
  if (produced > e.raw_size || (whole && (ret != 0 || produced != e.raw_size)) || produced < std::min(stop, uint64_t(e.raw_size)))
    return bad("zstd frame decoded to the wrong size");
  if (e.info.kind == uint16_t(ChunkKind::Index)) return Status::ok();
  const std::string why = head_problem(head.data(), map.head, e.raw_size, expected_body);
  if (!why.empty())
    return bad("payload is not a valid tvis FlatBuffer: " + why + " (found before decoding its " +
               format_bytes(e.raw_size) + ")");
  return Status::ok();
}

}  // namespace tvis::format
