#include "zstd_frame.h"

#include <algorithm>

namespace tvis::format {

namespace {
uint64_t read_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
constexpr uint64_t kMaxBlock = 128 * 1024;
}  // namespace

bool read_zstd_frame(const uint8_t* data, uint64_t size, ZstdFrame* out, std::string* why) {
  ZstdFrame f;
  if (size < 5 || read_le(data, 4) != 0xFD2FB528u) {
    *why = size >= 4 && (read_le(data, 4) & 0xFFFFFFF0u) == 0x184D2A50u ? "payload is a skippable zstd frame"
                                                                   : "payload is not a zstd frame";
    return false;
  }
  const uint8_t fhd = data[4];
  const int fcs_flag = fhd >> 6;
  const bool single_segment = (fhd >> 5) & 1;
  const bool checksum = (fhd >> 2) & 1;
  const int did_flag = fhd & 3;
  if ((fhd >> 3) & 1) {
    *why = "zstd frame header has its reserved bit set";
    return false;
  }
  const int did_bytes = did_flag == 3 ? 4 : did_flag;
  const int fcs_bytes = fcs_flag == 0 ? (single_segment ? 1 : 0) : (1 << fcs_flag);
  uint64_t at = 5;
  if (size < at + (single_segment ? 0 : 1) + did_bytes + fcs_bytes) {
    *why = "zstd frame header runs past the payload";
    return false;
  }
  if (!single_segment) {
    const uint8_t wd = data[at++];
    const uint64_t base = 1ull << (10 + (wd >> 3));
    f.window_size = base + (base / 8) * (wd & 7);
  }
  f.dictionary_id = uint32_t(read_le(data + at, did_bytes));
  at += did_bytes;
  if (fcs_bytes > 0) {
    f.has_content_size = true;
    f.content_size = read_le(data + at, fcs_bytes) + (fcs_bytes == 2 ? 256 : 0);
    at += fcs_bytes;
  }
  if (single_segment) f.window_size = f.content_size;
  const uint64_t block_max = std::min(f.window_size, kMaxBlock);
  for (;;) {
    if (size - at < 3) {
      *why = "zstd frame's blocks run past the payload";
      return false;
    }
    const uint32_t h = uint32_t(read_le(data + at, 3));
    at += 3;
    const bool last = h & 1;
    const uint32_t type = (h >> 1) & 3, block = h >> 3;
    if (type == 3) {
      *why = "zstd block of the reserved type";
      return false;
    }
    if (block > block_max) {
      *why = "zstd block larger than its frame allows";
      return false;
    }
    const uint64_t stored = type == 1 ? 1 : block;
    if (size - at < stored) {
      *why = "zstd frame's blocks run past the payload";
      return false;
    }
    at += stored;
    if (type == 2) {
      f.max_decoded += block_max;
    } else {
      f.min_decoded += block;
      f.max_decoded += block;
    }
    if (last) break;
  }
  if (checksum) {
    if (size - at < 4) {
      *why = "zstd frame's checksum runs past the payload";
      return false;
    }
    at += 4;
  }
  f.frame_size = at;
  *out = f;
  return true;
}

}  // namespace tvis::format
