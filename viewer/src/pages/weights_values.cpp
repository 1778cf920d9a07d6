// The Weights page's shown values (weights_parts.h): a parameter's decoded
// image, kept for the frames that draw it, and drawn as bars or a heatmap
// with its conv tile grid and exact hover values.
#include <imgui.h>

#include <algorithm>
#include <memory>
#include <string>

#include "../theme.h"
#include "tvis/viewer_model/param_update.h"
#include "tvis/widgets/bar_chart.h"
#include "tvis/widgets/format_number.h"
#include "weights_parts.h"

namespace tvis::viewer::weights {

namespace {

// Lines between a conv image's tiles (one per filter x input channel), where
// a tile is at least 12 pixels: visible on the dark centre of the colormap.
void draw_tile_grid(const WeightImage& img, const widgets::HeatmapResult& r, float cell_w, float cell_h) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 grid = IM_COL32(140, 140, 150, 110);
  if (cell_w * static_cast<float>(img.tile_cols) >= 12)
    for (int c = img.tile_cols; c < img.cols; c += img.tile_cols) {
      const float x = r.image_min.x + cell_w * static_cast<float>(c);
      dl->AddLine(ImVec2(x, r.image_min.y), ImVec2(x, r.image_max.y), grid, 1.0f);
    }
  if (cell_h * static_cast<float>(img.tile_rows) >= 12)
    for (int c = img.tile_rows; c < img.rows; c += img.tile_rows) {
      const float y = r.image_min.y + cell_h * static_cast<float>(c);
      dl->AddLine(ImVec2(r.image_min.x, y), ImVec2(r.image_max.x, y), grid, 1.0f);
    }
}

// The hovered cell of the full image, exactly: filter, input channel and
// kernel position for convolutions, else row and column.
void value_tooltip(const WeightImage& img, const widgets::HeatmapResult& r, float cell_w, float cell_h) {
  const ImVec2 m = ImGui::GetIO().MousePos;
  const int row = std::clamp(static_cast<int>((m.y - r.image_min.y) / cell_h), 0, img.rows - 1);
  const int col = std::clamp(static_cast<int>((m.x - r.image_min.x) / cell_w), 0, img.cols - 1);
  const double v = img.values[static_cast<size_t>(row) * static_cast<size_t>(img.cols) + static_cast<size_t>(col)];
  if (img.tile_rows > 0)
    ImGui::SetTooltip("filter %d, input channel %d, kernel (%d, %d) = %s", row / img.tile_rows, col / img.tile_cols,
                      row % img.tile_rows, col % img.tile_cols, widgets::format_exact(v).c_str());
  else
    ImGui::SetTooltip("row %d, col %d = %s", row, col, widgets::format_exact(v).c_str());
}

// The reduced image as a diverging heatmap (its texture kept in `w`), with
// the tile grid and the hovered cell of the full image.
void draw_heatmap(AppState& s, WeightsState& w, const ShownImage& si, float height) {
  widgets::HeatmapOptions o;
  o.size = ImVec2(0, height);
  o.colormap = widgets::Colormap::Diverging;
  o.has_range = true;
  o.range = si.range;
  o.uploader = s.options.texture_uploader;
  o.texture = &w.texture;
  o.data_version = si.version;
  o.show_tooltip = false;
  const WeightImage& d = si.shown;
  const widgets::HeatmapResult r = widgets::heatmap("##wheat", widgets::ValueSpan(d.values), d.rows, d.cols, o);
  const WeightImage& img = si.full;
  const float cell_w = (r.image_max.x - r.image_min.x) / static_cast<float>(img.cols);
  const float cell_h = (r.image_max.y - r.image_min.y) / static_cast<float>(img.rows);
  if (img.tile_rows > 0) draw_tile_grid(img, r, cell_w, cell_h);
  if (r.hovered) value_tooltip(img, r, cell_w, cell_h);
}

// Makes room for one more image: the least recently drawn go.
void evict_least_recent(WeightsState& w) {
  while (w.images.size() >= kShownCached) {
    auto oldest = w.images.begin();
    for (auto i = w.images.begin(); i != w.images.end(); ++i)
      if (i->second.used < oldest->second.used) oldest = i;
    w.images.erase(oldest);
  }
}

}  // namespace

void draw_values(AppState& s, WeightsState& w, const ShownImage& si, const std::string& note, float height) {
  if (!si.error.empty()) {
    muted(si.error);
    return;
  }
  const WeightImage& img = si.full;
  if (img.rows == 0 || img.cols == 0) {
    muted("No values to draw (an empty tensor).");
    return;
  }
  if (si.partial)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "%s", note.c_str());
  if (img.vector && img.cols <= 4096) {
    widgets::BarChartOptions o;
    o.size = ImVec2(0, height);
    widgets::bar_chart("##wbars", widgets::ValueSpan(img.values), nullptr, o);
    return;
  }
  draw_heatmap(s, w, si, height);
}

const ShownImage* shown_image(AppState& s, WeightsState& w, const std::string& key, uint64_t id, ValuesKept kept,
                              int step, const ParamTensors* update_of) {
  auto it = w.images.find(key);
  if (it != w.images.end()) {
    it->second.used = w.frames;
    return &it->second;
  }
  const std::shared_ptr<const DecodedTensor> decoded =
      update_of ? update_values(s.model, *update_of, step) : s.model.values().get(id, step);
  if (decoded->loading) return nullptr;
  const std::string& error = decoded->error;
  const TensorValues& tv = decoded->values;
  evict_least_recent(w);
  ShownImage& si = w.images[key];
  si.used = w.frames;
  si.version = ++w.versions;
  if (!error.empty()) {
    si.error = kept == ValuesKept::None ? "Beyond --max-elems with no rows kept: statistics only (" +
                                                            error + ")."
                                                      : error;
    return &si;
  }
  si.partial = tv.partial;
  si.full = weight_image(tv);
  si.shown = reduce_image(si.full, kShownSide);
  si.range = widgets::color_range_of(widgets::ValueSpan(si.full.values), true);
  return &si;
}

}  // namespace tvis::viewer::weights
