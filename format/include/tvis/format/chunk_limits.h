// chunk_limits.h: how many bytes a chunk may decode to, judged from what the
// file holds before anything is allocated for it. Every reader of chunks
// (RunReader, and through it inspect, diagnose, diff, the agent, `tvis
// open`, the viewers native and wasm) gets these checks; a consumer that
// bounds its own copies can use the constants.
//
// A chunk header states its decoded size (raw_size) and the reader must not
// simply believe it: 32 kB of zstd RLE blocks really do decode to 1 GiB. So:
//   - any chunk: raw_size <= kMaxChunkRawSize (container.h) and
//     raw_size <= compressed_size * kZstdMaxRatio (no zstd frame does better);
//   - a chunk of records (every kind but TensorData and the footer index):
//     above kTableChunkFreeSize, at most kTableChunkMaxRatio decoded bytes per
//     stored byte. Records (events, statistics, names, source text) never
//     compress like that; only a run of one repeated byte does;
//   - tensor values (TensorData) may be all zeros, so they have only the
//     first two bounds; a reader that does not need the values verifies them
//     through a bounded window (RunReader::verify_chunk) instead of decoding;
//   - the footer index: at most 8 + 64 bytes per chunk that can lie before it.
// Then, before inflating, the zstd frame itself is checked (run_reader.h):
// one frame, no dictionary, its content size equal to raw_size, a window of
// at most kMaxZstdWindow, and block headers that can produce raw_size bytes.
// A chunk that would decode to more than kStreamCheckAbove and more than
// kStreamCheckRatio times its stored size is first decoded through a bounded
// window, its FlatBuffer's root checked, before its buffer is allocated.
#pragma once

#include <cstdint>

#include "tvis/format/container.h"
#include "tvis/format/error.h"

namespace tvis::format {

/// A zstd frame's best ratio: a 4-byte RLE block (3-byte header, 1 byte)
/// regenerates at most 128 KiB.
inline constexpr uint64_t kZstdMaxRatio = 32 * 1024;
/// A chunk of records may always decode to this much ...
inline constexpr uint64_t kTableChunkFreeSize = 16ull << 20;
/// ... and beyond it to at most this many bytes per stored byte.
inline constexpr uint64_t kTableChunkMaxRatio = 1024;
/// The largest zstd window a frame may ask for (zstd's own default limit for
/// decoding; the encoder's levels 1..22 stay within it).
inline constexpr uint64_t kMaxZstdWindow = 1ull << 27;
/// Chunks that decode to more than both of these are checked through a
/// bounded window before their buffer is allocated.
inline constexpr uint64_t kStreamCheckAbove = 1ull << 20;
inline constexpr uint64_t kStreamCheckRatio = 16;

/// The most bytes a chunk of `kind` stored in `compressed_size` bytes may
/// decode to (the footer index: see max_index_size()).
uint64_t max_decoded_size(uint16_t kind, uint64_t compressed_size);

/// The most bytes a footer index may decode to when the footer starts at
/// `footer_offset`: 8 + 64 per chunk header that fits before it.
uint64_t max_index_size(uint64_t footer_offset);

/// TooLarge naming the chunk, its sizes and the limit when its raw_size
/// exceeds max_decoded_size() (or kMaxChunkRawSize, or the compressed limit).
Status check_decoded_size(const ChunkEntry& entry);

}  // namespace tvis::format
