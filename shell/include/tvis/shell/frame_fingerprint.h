// frame_fingerprint.h: a 64-bit fingerprint of what a frame draws, so a shell
// can skip drawing (and presenting) a frame identical to the one on screen.
//
// Contract: two frames with equal fingerprints draw the same pixels, given
// the same `extra` (the shell folds in what the draw data cannot show: the
// framebuffer size and a counter of texture uploads). The fingerprint covers
// every draw list's vertices, indices and commands (clip rectangle, texture,
// offsets, counts) and the display's position, size and scale. A user
// callback command makes the frame always "changed" (its effect is unknown).
#pragma once

#include <cstdint>

struct ImDrawData;

namespace tvis::shell {

/// Never equal to the fingerprint of any frame (forces a draw).
constexpr uint64_t kAlwaysDraw = 0;

uint64_t frame_fingerprint(const ImDrawData& data, uint64_t extra);

}  // namespace tvis::shell
