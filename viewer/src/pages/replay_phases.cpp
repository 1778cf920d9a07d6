// Replay's phase views, beside the diagram: what the current stop shows.
//   data       the batch as loaded and the followed sample through its
//              transforms (replay_data_view.cpp)
//   forward    the layer panel (activation) for the current module call
//   loss       the value, the loss call and its source line
//   backward   the layer panel (gradient dL/d(output))
//   optimizer  the optimizer, its hyperparameters and the update per layer
// A part the run does not hold says why, in place.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>

#include "../panels/panel_labels.h"
#include "../theme.h"
#include "replay_state.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

void replay_say(ReplayState& r, const std::string& text, unsigned color) {
  r.notes.push_back(text);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(color));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

void replay_say(ReplayState& r, const std::string& text) { replay_say(r, text, colors::kMuted); }

namespace {

void draw_loss_view(AppState& s, ReplayState& r, const Stop& here) {
  const std::optional<LossEntry> loss = s.model.losses().shown(r.step, 0);
  const float em = ImGui::GetFontSize();
  if (!loss) {
    if (!s.model.losses().ready()) ImGui::TextDisabled("loading the loss ...");
    else replay_say(r, "No loss record for this step: backward() ran on a value tvis did not see computed by a known loss.");
  } else {
    ImGui::PushFont(nullptr);
    ImGui::SetWindowFontScale(1.8f);
    ImGui::Text("loss %s", !loss->value_repr.empty() ? loss->value_repr.c_str() : widgets::format_exact(loss->value).c_str());
    ImGui::SetWindowFontScale(1.0f);
    ImGui::PopFont();
    ImGui::Text("%s", loss->call.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("reduction %s", loss->reduction.empty() ? "?" : loss->reduction.c_str());
    for (const LossArgument& kv : loss->args) ImGui::TextDisabled("  %s = %s", kv.key.c_str(), kv.value.c_str());
    // The followed sample's part of it.
    const int sample = replay_sample(s);
    if (const SampleLossPart* sl = loss->part_of(sample))
      ImGui::Text("sample %d: p(target) %s  ->  -log p %s  ->  loss %s", sample,
                  widgets::format_number(sl->p_target, 4).c_str(), widgets::format_number(sl->neg_log_p, 4).c_str(),
                  widgets::format_number(sl->loss, 4).c_str());
  }
  // The call and its source line.
  const uint64_t eid = loss ? loss->event : here.event;
  if (const CallRef e = s.model.call(eid)) {
    ImGui::Spacing();
    ImGui::TextDisabled("called at %s", call_site(s.model, e.call_file(), e.call_line()).c_str());
    bool loading = false;
    const std::optional<std::string_view> text = s.model.source_files().text(e.call_file(), &loading);
    if (text && e.call_line() > 0) {
      const std::string src(*text);
      size_t begin = 0;
      for (uint32_t l = 1; l < e.call_line() && begin != std::string::npos; ++l) {
        begin = src.find('\n', begin);
        if (begin != std::string::npos) ++begin;
      }
      if (begin != std::string::npos) {
        const size_t end = src.find('\n', begin);
        const std::string line = src.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
        ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.12f, 0.12f, 0.14f, 1));
        ImGui::BeginChild("loss_src", ImVec2(0, em * 2.2f), true);
        ImGui::Text("%4u  %s", e.call_line(), line.c_str());
        ImGui::EndChild();
        ImGui::PopStyleColor();
      }
    } else if (loading) {
      ImGui::TextDisabled("loading the source ...");
    }
  }
}

void draw_optimizer_view(AppState& s, ReplayState& r) {
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  const StepMagnitudes& m = s.model.layer_magnitudes().at(*plan);
  // The step's own record names its optimizer (a killed run has no end-of-run metadata).
  const std::string& cls = m.optimizer_recorded ? m.optimizer_class : s.model.info().optimizer_class;
  if (!m.optimizer_recorded && !m.complete) {
    // said below
  } else if (cls.empty()) replay_say(r, "A hand-written update (no torch.optim optimizer): the parameters' changes as recorded.");
  else ImGui::Text("%s.step()", cls.c_str());
  if (!m.optimizer_recorded) {
    if (!m.complete) ImGui::TextDisabled("loading the update ...");
    else replay_say(r, "No parameter update was recorded for this step.");
    return;
  }
  ImGui::TextDisabled("update per layer: ||dw|| and ||dw|| / ||w|| (bar: log scale)");
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& [mod, ratio] : m.update_ratio)
    if (ratio > 0) {
      lo = std::min(lo, std::log10(ratio));
      hi = std::max(hi, std::log10(ratio));
    }
  const float em = ImGui::GetFontSize();
  if (ImGui::BeginTable("updates", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
                        ImVec2(0, ImGui::GetContentRegionAvail().y - 4))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("layer", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn("||dw||", ImGuiTableColumnFlags_WidthFixed, em * 5);
    ImGui::TableSetupColumn("||dw||/||w||", ImGuiTableColumnFlags_WidthFixed, em * 6);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    // In the model's call order, then parameters of modules never called.
    std::vector<std::string> order;
    for (const Stop& st : plan->stops)
      if (st.phase == Phase::Forward && m.update_ratio.count(st.name) &&
          std::find(order.begin(), order.end(), st.name) == order.end())
        order.push_back(st.name);
    for (const auto& [mod, ratio] : m.update_ratio)
      if (std::find(order.begin(), order.end(), mod) == order.end()) order.push_back(mod);
    for (const std::string& mod : order) {
      const double ratio = m.update_ratio.at(mod);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(mod.empty() ? "(top level)" : mod.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(widgets::format_number(m.update_norm.at(mod), 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(widgets::format_number(ratio, 3).c_str());
      ImGui::TableNextColumn();
      const float t = hi > lo && ratio > 0 ? static_cast<float>((std::log10(ratio) - lo) / (hi - lo)) : 1.0f;
      const ImVec2 p0 = ImGui::GetCursorScreenPos();
      const float w = ImGui::GetContentRegionAvail().x;
      ImGui::Dummy(ImVec2(w, em * 0.9f));
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p0.x, p0.y + 2), ImVec2(p0.x + std::max(2.0f, w * (0.05f + 0.95f * t)), p0.y + em * 0.9f),
                                                phase_color(Phase::Optimizer), 2.0f);
    }
    ImGui::EndTable();
  }
}

}  // namespace

void draw_replay_phase_view(AppState& s, ReplayState& r) {
  const Stop* here = current_stop(s, r);
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  if (!plan || !here) {
    if (plan && plan->stops.empty()) replay_say(r, "Nothing was recorded in step " + std::to_string(r.step) + ".");
    else ImGui::TextDisabled("loading step %d ...", r.step);
    return;
  }
  // Title: step, phase, what the stop is.
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(phase_color(here->phase)), "step %d  %s", r.step,
                     phase_label(here->phase));
  ImGui::SameLine();
  ImGui::Text("%s", here->name.empty() ? event_kind_label(here->kind) : here->name.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%s  (%d / %zu)", here->cls.c_str(), r.stop + 1, plan->stops.size());
  if (plan->other_events) {
    ImGui::SameLine();
    ImGui::TextDisabled("| %" PRIu64 " calls outside training's phases (setup, evaluation) not played", plan->other_events);
  }
  if (plan->unreadable) replay_say(r, "Part of this step is unreadable (a damaged chunk): its calls are not played.", colors::kWarning);
  ImGui::Separator();
  switch (here->phase) {
    case Phase::Data: draw_replay_data_view(s, r, *here); break;
    case Phase::Loss: draw_loss_view(s, r, *here); break;
    case Phase::Optimizer: draw_optimizer_view(s, r); break;
    case Phase::Forward:
    case Phase::Backward: {
      if (here->kind != EventKind::ModuleCall) {
        replay_say(r, std::string("A ") + event_kind_label(here->kind) + " in " + phase_label(here->phase) +
            ": no layer view (step by layer to visit only module calls).");
        if (const CallRef e = s.model.call(here->event))
          ImGui::TextDisabled("called at %s", call_site(s.model, e.call_file(), e.call_line()).c_str());
        break;
      }
      LayerTarget t;
      t.event = here->event;
      t.step = r.step;
      t.sample = replay_sample(s);
      t.gradient = here->phase == Phase::Backward;
      PanelContext c = replay_panel_context(s);
      draw_layer_view(c, r.layer, t);
      r.layer_shown = r.layer.shown;
      break;
    }
    default: break;
  }
}

}  // namespace tvis::viewer
