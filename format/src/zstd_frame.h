// zstd_frame.h (internal): what a zstd frame says about itself, read from its
// header and block headers without decoding anything (RFC 8878, section 3.1).
// The reader uses it to judge a chunk before allocating for it: a frame that
// needs a dictionary, asks for a huge window, or whose blocks cannot produce
// the size its header states is refused without inflating a byte.
#pragma once

#include <cstdint>
#include <string>

namespace tvis::format {

struct ZstdFrame {
  bool has_content_size = false;
  uint64_t content_size = 0;
  uint64_t window_size = 0;   // a single-segment frame's window is its content size
  uint32_t dictionary_id = 0;
  uint64_t min_decoded = 0;   // raw and RLE blocks state what they produce ...
  uint64_t max_decoded = 0;   // ... compressed blocks at most a block's maximum each
  uint64_t frame_size = 0;    // bytes from the magic to the end of the frame
};

/// Reads the frame starting at `data` (of `size` bytes). Returns false with
/// the reason in `why` when it is not a whole, well-formed zstd frame: no zstd
/// magic (or a skippable frame), a reserved bit set, a block of the reserved
/// type or larger than the frame's block maximum, or blocks running past `size`.
bool read_zstd_frame(const uint8_t* data, uint64_t size, ZstdFrame* out, std::string* why);

}  // namespace tvis::format
