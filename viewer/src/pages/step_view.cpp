// Step view: the phases of each recorded step (data, forward, loss,
// backward, optimizer) as stacked bars on one time scale, with durations.
// Click a phase to jump there. Timings come from the run's metadata: the
// user's time per phase (user_time.h), tvis's own work in its own column;
// a run that recorded no own time shows wall times and says so.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <map>

#include "../theme.h"
#include "explore_state.h"

namespace tvis::viewer {

namespace {

constexpr Phase kPhases[] = {Phase::Data, Phase::Forward, Phase::Loss,
                                     Phase::Backward, Phase::Optimizer};

int phase_slot(Phase p) {
  const int v = static_cast<int>(p) - 1;
  return v >= 0 && v < 5 ? v : -1;
}

}  // namespace

void draw_step_view(AppState& s, ExploreState&) {
  const RunInfo& info = s.model.info();
  if (!info.loaded) {
    ImGui::TextDisabled("Loading run metadata ...");
    return;
  }
  std::map<int, std::array<int64_t, 5>> steps;  // step -> the user's ns per phase (wall without own time)
  std::map<int, int64_t> own;                    // step -> tvis's own ns over its phases
  bool own_known = false;
  for (const auto& t : info.phase_timings) {
    const int slot = phase_slot(t.phase);
    if (slot < 0 || t.ns < 0) continue;
    const UserTime ut = phase_time(t.ns, t.own_ns);
    own_known = own_known || ut.known;
    auto it = steps.try_emplace(t.step, std::array<int64_t, 5>{}).first;
    it->second[static_cast<size_t>(slot)] += ut.user;
    own[t.step] += ut.own;
  }
  if (steps.empty()) {
    ImGui::TextDisabled("This run records no phase timings.");
    return;
  }
  int64_t longest = 1;
  for (const auto& [step, ns] : steps) {
    int64_t total = 0;
    for (int64_t v : ns) total += v;
    longest = std::max(longest, total);
  }
  // Legend.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float em = ImGui::GetFontSize();
  for (Phase p : kPhases) {
    const ImVec2 c = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(ImVec2(c.x, c.y + em * 0.25f), ImVec2(c.x + em * 0.7f, c.y + em * 0.95f), phase_color(p), 2);
    ImGui::Dummy(ImVec2(em * 0.8f, em));
    ImGui::SameLine();
    ImGui::TextUnformatted(phase_label(p));
    ImGui::SameLine(0, em);
  }
  ImGui::NewLine();
  if (own_known)
    ImGui::TextDisabled("Your code's time per phase; tvis's own work (hooks, captures, Grad-CAM passes, copies, "
                        "writing) is in the tvis column.");
  else
    ImGui::TextDisabled("This run did not record tvis's own time: these are wall times, tvis's work included.");

  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("steps", 9, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Step", ImGuiTableColumnFlags_WidthFixed, em * 3);
  ImGui::TableSetupColumn("Phases", ImGuiTableColumnFlags_WidthStretch);
  for (Phase p : kPhases) ImGui::TableSetupColumn(phase_label(p), ImGuiTableColumnFlags_WidthFixed, em * 4.4f);
  ImGui::TableSetupColumn("Total", ImGuiTableColumnFlags_WidthFixed, em * 4.4f);
  ImGui::TableSetupColumn("tvis own", ImGuiTableColumnFlags_WidthFixed, em * 4.4f);
  ImGui::TableHeadersRow();
  for (const auto& [step, ns] : steps) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    const bool current = s.selection.step == step;
    if (current) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kAccent), "%d", step);
    else ImGui::Text("%d", step);
    ImGui::TableSetColumnIndex(1);
    const ImVec2 a = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetTextLineHeight();
    float x0 = a.x;
    int64_t total = 0;
    for (size_t k = 0; k < 5; ++k) {
      total += ns[k];
      const float seg = w * static_cast<float>(static_cast<double>(ns[k]) / static_cast<double>(longest));
      if (seg <= 0) continue;
      const ImVec2 p0(x0, a.y + 1), p1(x0 + std::max(seg, 1.0f), a.y + h - 1);
      dl->AddRectFilled(p0, p1, phase_color(kPhases[k]), 2);
      const std::string label = duration_label(ns[k]);
      const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
      if (ts.x + 6 < seg) dl->AddText(ImVec2(x0 + 3, a.y), IM_COL32(15, 18, 24, 255), label.c_str());
      if (ImGui::IsMouseHoveringRect(p0, p1)) {
        ImGui::SetTooltip("step %d, %s: %s (click: jump there)", step, phase_label(kPhases[k]), label.c_str());
        if (ImGui::IsMouseClicked(0)) {
          s.selection.step = step;
          s.selection.phase = kPhases[k];
          s.selection.jump_pending = true;
        }
      }
      x0 += seg;
    }
    ImGui::Dummy(ImVec2(w, h));
    for (size_t k = 0; k < 5; ++k) {
      ImGui::TableSetColumnIndex(static_cast<int>(k) + 2);
      if (ns[k] > 0) ImGui::TextUnformatted(duration_label(ns[k]).c_str());
      else ImGui::TextDisabled("-");
    }
    ImGui::TableSetColumnIndex(7);
    ImGui::TextUnformatted(duration_label(total).c_str());
    ImGui::TableSetColumnIndex(8);
    if (own_known) ImGui::TextDisabled("%s", duration_label(own[step]).c_str());
    else ImGui::TextDisabled("-");
  }
  ImGui::EndTable();
}

}  // namespace tvis::viewer
