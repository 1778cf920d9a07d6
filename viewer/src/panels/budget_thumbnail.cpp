#include "budget_thumbnail.h"

#include "imgui.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {
namespace {

struct Grid {
  int rows = 0, cols = 0;
  const float* values = nullptr;
};

Grid grid_of(const schema::TensorRecord& rec) {
  const auto* v = rec.thumbnail();
  const auto* s = rec.thumbnail_shape();
  if (!v || !s || s->size() != 2) return {};
  const int rows = s->Get(0), cols = s->Get(1);
  if (rows <= 0 || cols <= 0 || static_cast<size_t>(rows) * cols != v->size()) return {};
  return {rows, cols, v->data()};
}

}  // namespace

bool has_budget_thumbnail(const schema::TensorRecord& rec) { return grid_of(rec).values != nullptr; }

const char* budget_refused_sentence() {
  return "the run's byte budget refused its values (record with a larger `tvis run --max-run-bytes` to keep them)";
}

void draw_budget_thumbnail(const PanelContext& c, const schema::TensorRecord& rec, widgets::HeatmapTexture& texture) {
  const Grid g = grid_of(rec);
  if (!g.values) return;
  const std::string shape = shape_label(rec.shape());
  ImGui::TextDisabled("Thumbnail: %d x %d block means of the tensor %s seen as [dim 0, the rest]; not its values.",
                      g.rows, g.cols, shape.c_str());
  widgets::HeatmapOptions o;
  o.size = ImVec2(0.0f, 160.0f);
  o.keep_aspect = false;
  o.uploader = c.options.texture_uploader;
  o.texture = &texture;
  o.data_version = rec.id();
  widgets::heatmap("##budget_thumbnail", widgets::ValueSpan(g.values, size_t(g.rows) * g.cols), g.rows, g.cols, o);
}

nlohmann::json budget_thumbnail_json(const schema::TensorRecord& rec) {
  const Grid g = grid_of(rec);
  if (!g.values) return nullptr;
  nlohmann::json rows = nlohmann::json::array();
  for (int r = 0; r < g.rows; ++r)
    rows.push_back(std::vector<float>(g.values + size_t(r) * g.cols, g.values + size_t(r + 1) * g.cols));
  return {{"rows", g.rows}, {"cols", g.cols}, {"values", std::move(rows)}};
}

}  // namespace tvis::viewer
