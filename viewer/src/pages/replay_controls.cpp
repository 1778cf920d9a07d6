// Replay's controls: play/pause (Space), step back/on (left/right), phase
// jumps (up/down, or a phase's button), step size, speed, the followed
// sample ([ and ] switch it), and the timeline strip: one cell per (step, phase), the
// current one outlined, a click goes there.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "../panels/panel_labels.h"
#include "../theme.h"
#include "replay_state.h"

namespace tvis::viewer {

namespace {

constexpr Phase kPhases[] = {Phase::Data, Phase::Forward, Phase::Loss,
                                     Phase::Backward, Phase::Optimizer};

ImU32 dim(ImU32 c, float k) {
  const ImVec4 v = ImGui::ColorConvertU32ToFloat4(c);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(v.x * k, v.y * k, v.z * k, 1.0f));
}

void draw_timeline_strip(AppState& s, ReplayState& r) {
  const int steps = s.model.step_count();
  const float em = ImGui::GetFontSize();
  const float h = em * 1.3f;
  const float avail = ImGui::GetContentRegionAvail().x;
  const int shown = std::max(1, steps);
  const float step_w = std::clamp(avail / static_cast<float>(shown), em * 2.5f, em * 14);
  const bool wide = step_w * shown > avail;
  const float strip_h = em * 1.1f + h + ImGui::GetStyle().ItemSpacing.y * 2 + 8 + (wide ? ImGui::GetStyle().ScrollbarSize : 0);
  ImGui::BeginChild("replay_strip", ImVec2(0, strip_h), false,
                    ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoScrollWithMouse |
                        (wide ? 0 : ImGuiWindowFlags_NoScrollbar));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const Stop* here = current_stop(s, r);
  // Only the steps in view are drawn (and only their plans asked for): a run
  // may claim a million steps, and the strip's cost must be what one screen
  // shows. The strip is laid out as `steps` cells of `pitch` width; a Dummy
  // at the end gives the scrollbar the whole width.
  const float pitch = step_w + 4;
  const ImVec2 origin = ImGui::GetCursorScreenPos();  // already moved left by the scroll
  const float scroll = ImGui::GetScrollX();
  const int first = std::clamp(static_cast<int>(scroll / pitch), 0, std::max(0, steps - 1));
  const int last = std::clamp(static_cast<int>((scroll + ImGui::GetWindowWidth()) / pitch) + 1, first, std::max(0, steps - 1));
  for (int step = first; step <= last && step < steps; ++step) {
    const StepPlan* plan = s.model.step_stops().plan(step);
    ImGui::PushID(step);
    ImGui::SetCursorScreenPos(ImVec2(origin.x + static_cast<float>(step) * pitch, origin.y));
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::BeginGroup();
    ImGui::TextDisabled("step %d", step);
    const float cell = (step_w - 4) / 5.0f;
    for (int k = 0; k < 5; ++k) {
      const Phase ph = kPhases[k];
      const ImVec2 c0(p0.x + k * cell, p0.y + em * 1.1f);
      const ImVec2 c1(c0.x + cell - 1, c0.y + h);
      ImGui::SetCursorScreenPos(c0);
      ImGui::PushID(k);
      ImGui::InvisibleButton("##cell", ImVec2(cell - 1, h));
      const bool hovered = ImGui::IsItemHovered();
      const bool present = plan && plan->first_of(ph) >= 0;
      if (ImGui::IsItemClicked() && (present || !plan)) go_to(s, r, step, Landing{Landing::Match, ph});
      ImGui::PopID();
      const bool current = here && step == r.step && here->phase == ph;
      ImU32 col = phase_color(ph);
      if (!plan) col = IM_COL32(60, 62, 68, 255);
      else if (!present) col = IM_COL32(40, 40, 44, 255);
      else if (!current) col = dim(col, step == r.step ? 0.7f : 0.45f);
      dl->AddRectFilled(c0, c1, col, 2.0f);
      if (plan && !present) dl->AddLine(c0, c1, IM_COL32(90, 90, 96, 255));
      if (current) {
        dl->AddRect(ImVec2(c0.x - 1, c0.y - 1), ImVec2(c1.x + 1, c1.y + 1), IM_COL32(255, 255, 255, 255), 2.0f, 0, 2.0f);
        // progress inside the phase
        const int first = plan->first_of(ph);
        int last = first;
        while (last + 1 < static_cast<int>(plan->stops.size()) && plan->stops[last + 1].phase == ph) ++last;
        const float t = last > first ? static_cast<float>(r.stop - first) / (last - first) : 1.0f;
        dl->AddRectFilled(ImVec2(c0.x, c1.y - 3), ImVec2(c0.x + (c1.x - c0.x) * t, c1.y), IM_COL32(255, 255, 255, 220));
      }
      if (hovered) {
        if (!plan) ImGui::SetTooltip("step %d %s (loading ...)", step, phase_label(ph));
        else if (!present) ImGui::SetTooltip("step %d: %s", step, missing_phase_reason(s, ph));
        else ImGui::SetTooltip("step %d %s (click: go there)", step, phase_label(ph));
      }
    }
    ImGui::SetCursorScreenPos(ImVec2(p0.x, p0.y + em * 1.1f + h + 2));
    ImGui::Dummy(ImVec2(step_w - 4, 1));
    ImGui::EndGroup();
    ImGui::PopID();
  }
  if (steps > 0) {
    ImGui::SetCursorScreenPos(ImVec2(origin.x + static_cast<float>(steps) * pitch - 5, origin.y));
    ImGui::Dummy(ImVec2(1, 1));
  }
  ImGui::EndChild();
}

}  // namespace

const char* missing_phase_reason(AppState& s, Phase p) {
  switch (p) {
    case Phase::Data: return "no data phase: the batch did not come from a torch DataLoader";
    case Phase::Loss: return "no loss phase: no loss call was recognised before backward()";
    case Phase::Backward: return "no backward phase recorded in this step";
    case Phase::Optimizer:
      return s.model.info().optimizer_class.empty() ? "no optimizer phase: no torch.optim step and no update recorded"
                                                    : "no optimizer phase recorded in this step";
    default: return "not recorded";
  }
}

void draw_replay_controls(AppState& s, ReplayState& r) {
  const float em = ImGui::GetFontSize();
  if (ImGui::Button(r.playing ? "Pause" : "Play", ImVec2(em * 4, 0))) r.playing = !r.playing;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Space");
  ImGui::SameLine();
  if (ImGui::ArrowButton("##back", ImGuiDir_Left)) move(s, r, -1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("one %s back (left arrow)", step_size_label(r.step_size));
  ImGui::SameLine();
  if (ImGui::ArrowButton("##on", ImGuiDir_Right)) move(s, r, +1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("one %s on (right arrow)", step_size_label(r.step_size));
  ImGui::SameLine();
  ImGui::TextDisabled("by");
  ImGui::SameLine();
  for (StepSize size : {StepSize::Layer, StepSize::Call, StepSize::Phase, StepSize::Batch}) {
    if (ImGui::RadioButton(step_size_label(size), r.step_size == size)) r.step_size = size;
    ImGui::SameLine();
  }
  ImGui::TextDisabled("speed");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 7);
  ImGui::SliderFloat("##speed", &r.speed, 0.5f, 60.0f, "%.1f / s", ImGuiSliderFlags_Logarithmic);
  ImGui::SameLine(0, em * 1.5f);
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  for (Phase ph : kPhases) {
    const bool present = plan && plan->first_of(ph) >= 0;
    const Stop* here = current_stop(s, r);
    const bool active = here && here->phase == ph;
    ImGui::PushStyleColor(ImGuiCol_Button, active ? phase_color(ph) : dim(phase_color(ph), present ? 0.45f : 0.2f));
    if (ImGui::SmallButton(phase_label(ph)) && present) jump_phase(s, r, ph);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", present ? "jump to this phase (up / down: previous / next phase)"
                                      : (plan ? missing_phase_reason(s, ph) : "loading ..."));
    ImGui::SameLine();
  }
  const int sample = replay_sample(s);
  ImGui::SameLine(0, em);
  if (sample >= 0) {
    ImGui::TextDisabled("sample %d", sample);  // the keys in its tooltip: as text they read as empty brackets
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the sample Replay follows\n[ and ]: the previous / next one");
  } else {
    ImGui::TextDisabled("no followed samples");
  }
  draw_timeline_strip(s, r);
  // Where the run is incomplete, say so here.
  if (!s.model.complete()) {
    const std::string early = "The run ended early (killed or still writing): Replay shows the " +
                              std::to_string(s.model.step_count()) + " step(s) on disk.";
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "%s", early.c_str());
    r.notes.push_back(early);
  }
}

}  // namespace tvis::viewer
