// picture.h: a tensor drawn as the picture it is (a sample's image), with
// cells merged into blocks of at most max_side x max_side (28 x 28 .. 224 x
// 224 samples drawn as at most 64 x 64 blocks): one texture of the picture
// (picture_textures.h), uploaded once per key, where a TextureTarget is
// given; else one filled rectangle per block. Both show the same colours.
//
// Layouts: [H, W] grey; [C, H, W] with C in {1, 3} (a batched sample);
// [H, W, C] with C in {1, 3, 4} (a PIL image as recorded). Values are shown
// as they are when they look like 0..255 bytes (an integer dtype) or 0..1,
// else stretched from their min..max (the recorded normalisation undone only
// up to an affine map: what the eye needs).
#pragma once

#include <imgui.h>

#include <cstdint>
#include <vector>

#include "picture_textures.h"

namespace tvis::viewer {

struct PictureLayout {
  bool ok = false;
  int height = 0, width = 0, channels = 0;
  bool channels_last = false;
};

/// The layout of a picture of `shape`, or ok = false when it is not one.
PictureLayout picture_layout(const std::vector<int64_t>& shape);

/// Draws `values` (row-major, `layout`) into the rectangle [min, max] of
/// `dl`; `integer_bytes`: the values are 0..255. Returns false (and draws
/// nothing) when the values are too short for the layout.
bool draw_picture(ImDrawList* dl, ImVec2 min, ImVec2 max, const double* values, size_t count,
                  const PictureLayout& layout, bool integer_bytes, int max_side = 64);
/// As above, drawn as the texture `target.key` names (the key must name the
/// values: run, tensor, row) when target has textures and an uploader, else
/// as rectangles.
bool draw_picture(ImDrawList* dl, ImVec2 min, ImVec2 max, const double* values, size_t count,
                  const PictureLayout& layout, bool integer_bytes, const TextureTarget& target, int max_side = 64);

/// Fits a w x h picture into `avail` keeping its aspect ratio.
ImVec2 fit_picture(float w, float h, ImVec2 avail);

}  // namespace tvis::viewer
