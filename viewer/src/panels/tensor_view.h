// tensor_view.h: one tensor: shape, dtype, exact statistics and recorded
// histogram, and its kept values as a heatmap of a 2-D slice or a table.
// TensorViewState is what the view remembers between frames; whoever shows
// the view owns one (the inspector does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "panel_context.h"
#include "tvis/viewer_model/tensor_index.h"
#include "tvis/widgets/heatmap.h"
#include "tvis/widgets/tensor_slice.h"

namespace tvis::viewer {

struct TensorViewState {
  std::optional<uint64_t> tensor;  // tensor id
  std::optional<uint64_t> decoded_for;
  TensorValues values;
  std::string error;  // why the values cannot be shown
  widgets::SliceSpec spec;
  widgets::Slice2D slice;
  bool slice_dirty = true;
  std::string slice_error;
  widgets::Slice2D reduced;  // block-reduced slice drawn without a texture uploader
  uint64_t reduced_version = UINT64_MAX;
  int mode = 0;  // 0 heatmap, 1 table
  widgets::HeatmapTexture texture;
  widgets::HeatmapTexture thumbnail_texture;  // a byte-budget thumbnail (budget_thumbnail.h)
  uint64_t texture_version = 0;
};

/// Draws tensor `t` (non-empty) into the caller's state `v`.
void draw_tensor_view(PanelContext& c, TensorViewState& v, const TensorRef& t);

}  // namespace tvis::viewer
