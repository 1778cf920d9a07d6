// Tensor view: one tensor's shape, dtype, exact statistics and recorded
// histogram, and its kept values as a heatmap of a 2-D slice (axis pickers
// for N-D tensors) or as a table. Hover shows exact values. Values are
// decoded from their TensorData chunk on demand (placeholder while loading).
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>

#include "../theme.h"
#include "budget_thumbnail.h"
#include "tensor_view.h"
#include "tvis/viewer_model/tensor_stats.h"
#include "tvis/widgets/format_number.h"
#include "tvis/widgets/histogram.h"
#include "tvis/widgets/value_table.h"

namespace tvis::viewer {

namespace {

constexpr int kMaxRectSide = 128;  // without a texture uploader, heatmaps show at most this many blocks a side

void stat_cell(const char* label, const std::string& v) {
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", label);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(v.c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s = %s (click to copy)", label, v.c_str());
  if (ImGui::IsItemClicked()) ImGui::SetClipboardText(v.c_str());
}

void draw_stats(const TensorStats& st) {
  if (!ImGui::BeginTable("stats", 6, ImGuiTableFlags_SizingStretchProp)) return;
  const float em = ImGui::GetFontSize();
  for (int k = 0; k < 3; ++k) {
    ImGui::TableSetupColumn(nullptr, ImGuiTableColumnFlags_WidthFixed, em * 3.6f);
    ImGui::TableSetupColumn(nullptr, ImGuiTableColumnFlags_WidthStretch);
  }
  stat_cell("min", widgets::format_exact(st.min));
  stat_cell("max", widgets::format_exact(st.max));
  stat_cell("mean", widgets::format_exact(st.mean));
  stat_cell("std", widgets::format_exact(st.stddev));
  stat_cell("mean|x|", widgets::format_exact(st.mean_abs));
  stat_cell("l2", widgets::format_exact(st.l2));
  stat_cell("count", std::to_string(st.count));
  stat_cell("finite", std::to_string(st.finite_count));
  stat_cell("nan/inf", std::to_string(st.nan_count) + " / " + std::to_string(st.inf_count));
  ImGui::EndTable();
}

void draw_histogram(const TensorStats& st) {
  if (!st.has_histogram()) return;
  const std::vector<double>& counts = st.histogram;
  widgets::HistogramMark marks[2] = {{st.mean, "mean", 0}, {0.0, "0", IM_COL32(150, 150, 150, 255)}};
  widgets::HistogramOptions o;
  o.size = ImVec2(0, ImGui::GetFontSize() * 5.5f);
  o.marks = marks;
  o.mark_count = 2;
  widgets::histogram("##hist", widgets::ValueSpan(counts), st.hist_lo, st.hist_hi, o);
}

// Takes the values of `t` from the model's cache (decoded there once, for
// every page) once its TensorData chunk is resident. Returns false while loading.
bool ensure_values(PanelContext& c, TensorViewState& v, const TensorRef& t) {
  if (v.decoded_for && *v.decoded_for == t.id()) return true;
  const std::shared_ptr<const DecodedTensor> d = c.model.values().get(t);
  if (d->loading) return false;
  v.values = d->values;  // the panel slices its own copy
  v.error = d->error;
  v.decoded_for = t.id();
  if (!v.error.empty()) return true;
  v.spec = widgets::default_slice_spec(v.values.shape);
  v.slice_dirty = true;
  ++v.texture_version;
  return true;
}

// Axis pickers: which axes are rows / columns, and the index of the others.
void draw_axis_pickers(TensorViewState& v) {
  const auto& shape = v.values.shape;
  const int rank = static_cast<int>(shape.size());
  if (rank < 2) return;
  v.spec.index.resize(static_cast<size_t>(rank), 0);
  const float em = ImGui::GetFontSize();
  auto axis_combo = [&](const char* id, int* axis) {
    char preview[32];
    std::snprintf(preview, sizeof preview, "dim %d (%" PRId64 ")", *axis, shape[static_cast<size_t>(*axis)]);
    ImGui::SetNextItemWidth(em * 7);
    if (ImGui::BeginCombo(id, preview)) {
      for (int a = 0; a < rank; ++a) {
        char item[32];
        std::snprintf(item, sizeof item, "dim %d (%" PRId64 ")", a, shape[static_cast<size_t>(a)]);
        if (ImGui::Selectable(item, a == *axis)) {
          int& other = axis == &v.spec.row_axis ? v.spec.col_axis : v.spec.row_axis;
          if (a == other) other = *axis;  // swap
          *axis = a;
          v.slice_dirty = true;
        }
      }
      ImGui::EndCombo();
    }
  };
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("rows");
  ImGui::SameLine();
  axis_combo("##rows", &v.spec.row_axis);
  ImGui::SameLine();
  ImGui::TextDisabled("cols");
  ImGui::SameLine();
  axis_combo("##cols", &v.spec.col_axis);
  for (int a = 0; a < rank; ++a) {
    if (a == v.spec.row_axis || a == v.spec.col_axis) continue;
    const int64_t dim = shape[static_cast<size_t>(a)];
    if (dim <= 1) continue;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + em * 7 < right) ImGui::SameLine();
    ImGui::PushID(a);
    int idx = static_cast<int>(v.spec.index[static_cast<size_t>(a)]);
    ImGui::SetNextItemWidth(em * 6);
    char fmt[32];
    std::snprintf(fmt, sizeof fmt, "dim %d = %%d", a);
    if (ImGui::SliderInt("##ix", &idx, 0, static_cast<int>(std::min<int64_t>(dim - 1, INT32_MAX)), fmt)) {
      v.spec.index[static_cast<size_t>(a)] = idx;
      v.slice_dirty = true;
    }
    ImGui::PopID();
  }
}

// Block-reduces a slice to at most kMaxRectSide a side for the rectangle path.
void reduce(const widgets::Slice2D& in, widgets::Slice2D* out) {
  const int br = (in.rows + kMaxRectSide - 1) / kMaxRectSide, bc = (in.cols + kMaxRectSide - 1) / kMaxRectSide;
  out->rows = (in.rows + br - 1) / br;
  out->cols = (in.cols + bc - 1) / bc;
  out->values.assign(static_cast<size_t>(out->rows) * static_cast<size_t>(out->cols), 0.0);
  for (int r = 0; r < out->rows; ++r)
    for (int c = 0; c < out->cols; ++c)
      out->values[static_cast<size_t>(r) * static_cast<size_t>(out->cols) + static_cast<size_t>(c)] =
          widgets::heatmap_block_value(widgets::ValueSpan(in.values), in.cols, r * br, std::min(in.rows, r * br + br),
                                       c * bc, std::min(in.cols, c * bc + bc), {});
}

void draw_values(PanelContext& c, TensorViewState& v, const TensorRef& t) {
  if (v.slice_dirty) {
    v.slice = {};
    v.slice_error.clear();
    if (!widgets::extract_slice(widgets::ValueSpan(v.values.values), v.values.shape, v.spec, &v.slice, &v.slice_error))
      v.slice = {};
    v.slice_dirty = false;
    ++v.texture_version;
  }
  ImGui::RadioButton("Heatmap", &v.mode, 0);
  ImGui::SameLine();
  ImGui::RadioButton("Table", &v.mode, 1);
  if (v.values.shape.size() >= 2) ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
  draw_axis_pickers(v);
  if (v.values.partial) {
    const KeptValues kept = t.kept();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "Leading %" PRId64 " of %" PRId64
                       " rows kept (statistics are over the whole tensor).",
                       kept.kept_rows, kept.rows);
  }
  if (!v.slice_error.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kError), "%s", v.slice_error.c_str());
    return;
  }
  if (v.slice.rows == 0 || v.slice.cols == 0) {
    ImGui::TextDisabled("Empty tensor.");
    return;
  }
  const float h = std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().y - 4);
  if (v.mode == 1) {
    widgets::ValueTableOptions o;
    o.size = ImVec2(0, h);
    widgets::value_table("##values", widgets::ValueSpan(v.slice.values), v.slice.rows, v.slice.cols, o);
    return;
  }
  widgets::HeatmapOptions o;
  o.size = ImVec2(0, h);
  const std::optional<TensorStats> st = t.stats();
  const bool signed_values = st && st->min < 0 && st->max > 0;
  o.colormap = signed_values ? widgets::Colormap::Diverging : widgets::Colormap::Sequential;
  o.symmetric = signed_values;
  o.uploader = c.options.texture_uploader;
  o.texture = &v.texture;
  o.data_version = v.texture_version;
  const bool reduced = !o.uploader && (v.slice.rows > kMaxRectSide || v.slice.cols > kMaxRectSide);
  if (!reduced) {
    widgets::heatmap("##heat", widgets::ValueSpan(v.slice.values), v.slice.rows, v.slice.cols, o);
    return;
  }
  // Reduced image; the tooltip still names the exact cell under the mouse.
  if (v.reduced_version != v.texture_version) {
    reduce(v.slice, &v.reduced);
    v.reduced_version = v.texture_version;
  }
  const widgets::Slice2D& small = v.reduced;
  o.show_tooltip = false;
  o.has_range = true;
  o.range = widgets::color_range_of(widgets::ValueSpan(v.slice.values), o.symmetric);
  widgets::HeatmapResult r = widgets::heatmap("##heat", widgets::ValueSpan(small.values), small.rows, small.cols, o);
  if (r.hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const float fx = (m.x - r.image_min.x) / std::max(1.0f, r.image_max.x - r.image_min.x);
    const float fy = (m.y - r.image_min.y) / std::max(1.0f, r.image_max.y - r.image_min.y);
    const int row = std::clamp(static_cast<int>(fy * static_cast<float>(v.slice.rows)), 0, v.slice.rows - 1);
    const int col = std::clamp(static_cast<int>(fx * static_cast<float>(v.slice.cols)), 0, v.slice.cols - 1);
    ImGui::SetTooltip("row %d, col %d = %s", row, col, widgets::format_exact(v.slice.at(row, col)).c_str());
  }
}

}  // namespace

void draw_tensor_view(PanelContext& c, TensorViewState& v, const TensorRef& t) {
  if (!v.tensor || *v.tensor != t.id()) {
    v.tensor = t.id();
    v.decoded_for.reset();
    v.error.clear();
  }
  const std::string name(t.name()), device(t.device());
  ImGui::Text("%s", name.empty() ? "tensor" : name.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("#%" PRIu64 "  %s  %s%s%s", t.id(), t.shape_label().c_str(), t.dtype_label(),
                      device.empty() ? "" : "  on ", device.c_str());
  if (const std::optional<TensorStats> st = t.stats()) {
    draw_stats(*st);
    draw_histogram(*st);
  }
  if (!ensure_values(c, v, t)) {
    ImGui::TextDisabled("Loading values (chunk %u) ...", t.data_chunk());
    return;
  }
  if (!v.error.empty()) {
    const bool stats_only = t.kept().kept == ValuesKept::None;
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(stats_only ? colors::kMuted : colors::kError), "%s",
                       v.error.c_str());
    if (stats_only && has_budget_thumbnail(t)) {
      ImGui::TextDisabled("Refused: %s.", budget_refused_sentence());
      draw_budget_thumbnail(c, t, v.thumbnail_texture);
    }
    return;
  }
  draw_values(c, v, t);
}

}  // namespace tvis::viewer
