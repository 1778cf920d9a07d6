// Weights: did my weights change the way they should. One parameter at a
// time (conv kernels as a filter x input-channel grid of small images,
// matrices as heatmaps, vectors as bars; stats and histogram beside), as its
// weight, gradient or update Δw = p_after − p_before, at any recorded step;
// the figures users look for (‖g‖, ‖Δw‖/‖w‖, the learning rate and optimizer
// state of the step). "All layers" (weights_all_layers.cpp) shows every
// parameter as a thumbnail. Values are read only for what is drawn.
// This file: the page's layout (controls, the parameter list, the tabs) and
// its registration; the one-parameter view is weights_one_param.cpp, its
// figures weights_figures.cpp, its values weights_values.cpp, state()'s view
// and the commands weights_view.cpp (weights_parts.h).
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "tvis/links/page_names.h"
#include "../link.h"
#include "../page.h"
#include "../theme.h"
#include "tvis/viewer_model/tensor_stats.h"
#include "tvis/viewer_model/param_update.h"
#include "tvis/widgets/bar_chart.h"
#include "tvis/widgets/format_number.h"
#include "tvis/widgets/histogram.h"
#include "weights_parts.h"

namespace tvis::viewer {

using nlohmann::json;

TensorRef tensor_at(AppState& s, int64_t id, int step, bool* loading) {
  if (id < 0) return {};
  bool done = true;
  TensorRef r = s.model.tensors().by_id(s.model, static_cast<uint64_t>(id), step, &done);
  if (!r && !done) *loading = true;
  return r;
}

extern const PageSpec kWeightsPage;

WeightsState& weights_state(AppState& s) { return page_state<WeightsState>(s, kWeightsPage); }

namespace {

std::unique_ptr<PageState> make_weights_state(AppState&) { return std::make_unique<WeightsState>(); }

// A rank switch keeps the parameter shown, what of it, and the tab.
void weights_link_position(AppState& s, json& link) {
  const WeightsState* w = existing_page_state<WeightsState>(s, kWeightsPage);
  if (!w) return;
  if (!w->param.empty()) link["param"] = w->param;
  link["show"] = show_name(w->show);
  if (w->all_layers) link["weights_tab"] = "All layers";
}

}  // namespace

std::vector<ParamRow> param_rows(AppState& s, WeightsState& w) {
  OptimizerSteps& opt = s.model.optimizer_steps();
  const int step = s.selection.step;
  std::vector<ParamRow> rows;
  bool loading = false;
  for (const std::string& name : opt.names()) {
    ParamRow r;
    r.name = name;
    r.ratio = NAN;
    if (const std::optional<ParamTensors> p = opt.param_tensors(step, name)) {
      r.here = true;
      if (TensorRef wr = tensor_at(s, p->weight, step, &loading)) {
        r.size = static_cast<int64_t>(wr.element_count());
        r.shape = wr.shape_label();
      }
      r.ratio = weights::update_ratio(s, *p, step, &loading);
    }
    rows.push_back(std::move(r));
  }
  if (w.sort == WeightSort::Name)  // "name": alphabetical (the run names them in the model's order)
    std::stable_sort(rows.begin(), rows.end(), [](const ParamRow& a, const ParamRow& b) { return a.name < b.name; });
  else if (w.sort == WeightSort::Size)
    std::stable_sort(rows.begin(), rows.end(), [](const ParamRow& a, const ParamRow& b) { return a.size > b.size; });
  else if (w.sort == WeightSort::UpdateRatio)
    std::stable_sort(rows.begin(), rows.end(), [](const ParamRow& a, const ParamRow& b) {
      return (std::isnan(b.ratio) ? -1 : b.ratio) < (std::isnan(a.ratio) ? -1 : a.ratio);
    });
  return rows;
}

namespace {

// The parameter list (left): every parameter the run names, sorted.
void draw_param_list(AppState& s, WeightsState& w) {
  const std::vector<ParamRow> rows = param_rows(s, w);
  ImGui::TextDisabled("%zu parameters", rows.size());
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(rows.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const ParamRow& r = rows[static_cast<size_t>(i)];
      if (!r.here) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kMuted));
      if (ImGui::Selectable(r.name.c_str(), r.name == w.param)) w.param = r.name;
      if (!r.here) ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) {
        const std::string ratio = std::isnan(r.ratio) ? std::string("—") : widgets::format_exact(r.ratio);
        if (r.here) ImGui::SetTooltip("%s %s\n‖Δw‖/‖w‖ = %s", r.name.c_str(), r.shape.c_str(), ratio.c_str());
        else ImGui::SetTooltip("%s: not updated at this step", r.name.c_str());
      }
    }
}

void draw_controls(AppState& s, WeightsState& w) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Show");
  int show = static_cast<int>(w.show);
  ImGui::SameLine();
  ImGui::RadioButton("weight", &show, 0);
  ImGui::SameLine();
  ImGui::RadioButton("gradient", &show, 1);
  ImGui::SameLine();
  ImGui::RadioButton("update Δw", &show, 2);
  w.show = static_cast<WeightShow>(show);
  const int steps = s.model.step_count();
  if (steps > 1) {
    ImGui::SameLine(0, ImGui::GetFontSize() * 2);
    ImGui::TextUnformatted("Step");
    ImGui::SameLine();
    int step = s.selection.step;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::SliderInt("##wstep", &step, 0, steps - 1) && step != s.selection.step) go_to_step(s, step);
  }
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  ImGui::TextUnformatted("Sort");
  ImGui::SameLine();
  int sort = static_cast<int>(w.sort);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  ImGui::Combo("##wsort", &sort, "name\0size\0update ratio\0");
  w.sort = static_cast<WeightSort>(sort);
}

void draw_weights_page(AppState& s) {
  WeightsState& w = weights_state(s);
  ++w.frames;
  OptimizerSteps& opt = s.model.optimizer_steps();
  if (opt.names().empty()) {
    if (!opt.ready()) ImGui::TextDisabled("Reading the optimizer steps ...");
    else
      weights::muted("This run recorded no optimizer step: no torch.optim step() and no hand-written update after a "
            "backward() finished while it was recorded (a run killed in its first step, or a profile capture).");
    return;
  }
  draw_controls(s, w);
  if (!ImGui::BeginTabBar("weights_tabs")) return;
  const bool request = w.all_layers_request;
  const bool want_all = w.all_layers;
  w.all_layers_request = false;
  if (ImGui::BeginTabItem("One parameter", nullptr, request && !want_all ? ImGuiTabItemFlags_SetSelected : 0)) {
    w.all_layers = false;
    const float em = ImGui::GetFontSize();
    const float list_w = std::max(em * 14, ImGui::GetContentRegionAvail().x * 0.2f);
    const float h = ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeight();
    ImGui::BeginChild("wlist", ImVec2(list_w, h), true);
    draw_param_list(s, w);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("wone", ImVec2(0, h), true);
    weights::draw_one_param(s, w);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("All layers", nullptr, request && want_all ? ImGuiTabItemFlags_SetSelected : 0)) {
    w.all_layers = true;
    draw_all_layers(s, w);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace

extern const PageSpec kWeightsPage;
const PageSpec kWeightsPage = {tvis::links::page::kWeights, draw_weights_page, weights::view,
                                weights::command,   false,             training_run,
                                make_weights_state, nullptr,           weights_link_position};

}  // namespace tvis::viewer
