// The Weights page's text and figures (weights_parts.h): muted notes, the
// figures of a step (‖w‖, ‖Δw‖/‖w‖), the statistics table and histogram,
// and what a tensor past --max-elems kept.
#include <imgui.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../theme.h"
#include "tvis/viewer_model/tensor_stats.h"
#include "tvis/widgets/format_number.h"
#include "tvis/widgets/histogram.h"
#include "weights_parts.h"

namespace tvis::viewer::weights {

void muted(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kMuted));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

std::string steps_label(const std::vector<int>& steps) {
  std::string out;
  for (size_t i = 0; i < steps.size() && i < 12; ++i) out += (i ? ", " : "") + std::to_string(steps[i]);
  if (steps.size() > 12) out += ", ...";
  return out;
}

const std::string& shown_param(AppState& s, WeightsState& w) {
  if (w.param.empty()) {
    const auto& names = s.model.optimizer_steps().names();
    if (!names.empty()) w.param = names.front();
  }
  return w.param;
}

double update_ratio(AppState& s, const ParamTensors& p, int step, bool* loading) {
  const TensorRef wr = tensor_at(s, p.weight, step, loading);
  const TensorRef ur = tensor_at(s, p.update, step, loading);
  if (!wr || !ur) return NAN;
  const std::optional<TensorStats> w_stats = wr.stats(), u_stats = ur.stats();
  if (!w_stats || !u_stats || !(w_stats->l2 > 0)) return NAN;
  return u_stats->l2 / w_stats->l2;
}

void figure(const char* label, const std::string& value, const char* help) {
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", label);
  if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(value.c_str());
}

std::string norm_of(const TensorRef& r) {
  const std::optional<TensorStats> st = r ? r.stats() : std::nullopt;
  return st ? widgets::format_exact(st->l2) : std::string("—");
}

void draw_stats_and_histogram(const std::optional<TensorStats>& st) {
  if (!st) return;
  if (ImGui::BeginTable("wstats", 4, ImGuiTableFlags_SizingStretchProp)) {
    figure("min", widgets::format_exact(st->min), nullptr);
    figure("max", widgets::format_exact(st->max), nullptr);
    figure("mean", widgets::format_exact(st->mean), nullptr);
    figure("std", widgets::format_exact(st->stddev), nullptr);
    figure("mean|x|", widgets::format_exact(st->mean_abs), nullptr);
    figure("count", std::to_string(st->count), nullptr);
    if (st->nan_count || st->inf_count)
      figure("nan/inf", std::to_string(st->nan_count) + " / " + std::to_string(st->inf_count), nullptr);
    ImGui::EndTable();
  }
  if (st->has_histogram()) {
    const std::vector<double>& counts = st->histogram;
    widgets::HistogramMark marks[2] = {{st->mean, "mean", 0}, {0.0, "0", IM_COL32(150, 150, 150, 255)}};
    widgets::HistogramOptions o;
    o.size = ImVec2(0, ImGui::GetFontSize() * 6);
    o.marks = marks;
    o.mark_count = 2;
    widgets::histogram("##whist", widgets::ValueSpan(counts), st->hist_lo, st->hist_hi, o);
  }
}

std::string kept_note(const KeptValues& k) {
  if (k.kept != ValuesKept::LeadingRows) return "";
  char text[200];
  std::snprintf(text, sizeof text,
                "Beyond --max-elems: the leading %" PRId64 " of %" PRId64
                " rows were kept (drawn); the statistics are over the whole tensor.",
                k.kept_rows, k.rows);
  return text;
}

}  // namespace tvis::viewer::weights
