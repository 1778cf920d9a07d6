#include "budget_thumbnail.h"

#include "imgui.h"

namespace tvis::viewer {
namespace {

struct Grid {
  int rows = 0, cols = 0;
  const float* values = nullptr;
};

Grid grid_of(const TensorRef& t) {
  const ThumbnailView v = t.thumbnail();
  if (!v.values || v.shape.size() != 2) return {};
  const int rows = v.shape[0], cols = v.shape[1];
  if (rows <= 0 || cols <= 0 || static_cast<size_t>(rows) * cols != v.size) return {};
  return {rows, cols, v.values};
}

}  // namespace

bool has_budget_thumbnail(const TensorRef& t) { return grid_of(t).values != nullptr; }

const char* budget_refused_sentence() {
  return "the run's byte budget refused its values (record with a larger `tvis run --max-run-bytes` to keep them)";
}

void draw_budget_thumbnail(const PanelContext& c, const TensorRef& t, widgets::HeatmapTexture& texture) {
  const Grid g = grid_of(t);
  if (!g.values) return;
  const std::string shape = t.shape_label();
  ImGui::TextDisabled("Thumbnail: %d x %d block means of the tensor %s seen as [dim 0, the rest]; not its values.",
                      g.rows, g.cols, shape.c_str());
  widgets::HeatmapOptions o;
  o.size = ImVec2(0.0f, 160.0f);
  o.keep_aspect = false;
  o.uploader = c.options.texture_uploader;
  o.texture = &texture;
  o.data_version = t.id();
  widgets::heatmap("##budget_thumbnail", widgets::ValueSpan(g.values, size_t(g.rows) * g.cols), g.rows, g.cols, o);
}

nlohmann::json budget_thumbnail_json(const TensorRef& t) {
  const Grid g = grid_of(t);
  if (!g.values) return nullptr;
  nlohmann::json rows = nlohmann::json::array();
  for (int r = 0; r < g.rows; ++r)
    rows.push_back(std::vector<float>(g.values + size_t(r) * g.cols, g.values + size_t(r + 1) * g.cols));
  return {{"rows", g.rows}, {"cols", g.cols}, {"values", std::move(rows)}};
}

}  // namespace tvis::viewer
