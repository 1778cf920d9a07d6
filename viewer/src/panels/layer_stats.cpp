// The layer panel's Stats tab: the activation's and the gradient's recorded
// statistics and histograms, and the same module across the recorded steps
// (layer_view.h).
#include <algorithm>
#include <cmath>

#include "layer_parts.h"
#include "tvis/viewer_model/tensor_stats.h"
#include "tvis/viewer_model/call_tensors.h"
#include "tvis/viewer_model/module_call_at.h"
#include "tvis/widgets/format_number.h"
#include "tvis/widgets/histogram.h"

namespace tvis::viewer {

namespace {

// `t`'s recorded statistics and histogram under `title` ("not recorded" for an empty ref).
void stats_table(const char* title, const TensorRef& t) {
  ImGui::TextUnformatted(title);
  const std::optional<TensorStats> stats = t ? t.stats() : std::nullopt;
  if (!stats) {
    ImGui::SameLine();
    ImGui::TextDisabled("not recorded");
    return;
  }
  const TensorStats& st = *stats;
  ImGui::SameLine();
  ImGui::TextDisabled("%s", t.shape_label().c_str());
  if (ImGui::BeginTable(title, 6, ImGuiTableFlags_SizingStretchSame)) {
    auto cell = [](const char* k, double x) {
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", k);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(widgets::format_number(x, 4).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s = %s", k, widgets::format_exact(x).c_str());
    };
    cell("min", st.min);
    cell("max", st.max);
    cell("mean", st.mean);
    cell("std", st.stddev);
    cell("mean|x|", st.mean_abs);
    cell("l2", st.l2);
    ImGui::EndTable();
  }
  if (st.has_histogram()) {
    const std::vector<double>& counts = st.histogram;
    widgets::HistogramMark marks[1] = {{st.mean, "mean", 0}};
    widgets::HistogramOptions o;
    o.size = ImVec2(0, ImGui::GetFontSize() * 4.5f);
    o.marks = marks;
    o.mark_count = 1;
    ImGui::PushID(title);
    widgets::histogram("##h", widgets::ValueSpan(counts), st.hist_lo, st.hist_hi, o);
    ImGui::PopID();
  }
}

void update_history(RunModel& model, LayerViewState& v) {
  const int steps = std::min(model.step_count(), 64);
  for (int step = 0; step < steps; ++step) {
    if (v.history_done[step]) continue;
    bool complete = true;
    const CallRef found = module_call_at(model, step, v.history_module, &complete);
    if (!found) {
      if (complete) v.history_done[step] = true;
      continue;
    }
    LayerViewState::StepRow row;
    row.step = step;
    row.grad = found.grad_norm();
    bool done = true;
    const TensorRef t = call_tensor(model, found, false, &done);
    if (const std::optional<TensorStats> st = t ? t.stats() : std::nullopt) {
      row.mean = st->mean;
      row.std = st->stddev;
      row.mean_abs = st->mean_abs;
    }
    v.history[step] = row;
    if (done) v.history_done[step] = true;
  }
}

}  // namespace

void draw_stats(PanelContext& c, LayerViewState& v, const CallRef& call) {
  const CallTensors tensors = call_tensors(c.model, call);
  stats_table("activation", tensors.output);
  ImGui::Spacing();
  stats_table("gradient dL/d(output)", tensors.gradient);
  if (!tensors.gradient) say("No gradient recorded for this call: backward did not pass through its output.");
  ImGui::Spacing();
  if (v.history_module != v.module) {
    v.history_module = v.module;
    v.history.clear();
    v.history_done.clear();
  }
  update_history(c.model, v);
  ImGui::TextUnformatted("across the recorded steps");
  if (ImGui::BeginTable("history", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY,
                        ImVec2(0, std::max(ImGui::GetFontSize() * 5, ImGui::GetContentRegionAvail().y - 4)))) {
    ImGui::TableSetupColumn("step");
    ImGui::TableSetupColumn("mean");
    ImGui::TableSetupColumn("std");
    ImGui::TableSetupColumn("mean|x|");
    ImGui::TableSetupColumn("||dL/dout||");
    ImGui::TableHeadersRow();
    for (const auto& [step, row] : v.history) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text(step == v.target.step ? "%d  <" : "%d", step);
      for (double x : {row.mean, row.std, row.mean_abs, row.grad}) {
        ImGui::TableNextColumn();
        if (std::isnan(x) || x < -0.5) ImGui::TextDisabled("-");
        else ImGui::TextUnformatted(widgets::format_number(x, 4).c_str());
      }
    }
    ImGui::EndTable();
  }
}

}  // namespace tvis::viewer
