// The step/phase navigator and the keyboard: choosing where in the run to look.
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app_state.h"
#include "page.h"
#include "theme.h"

namespace tvis::viewer {

namespace {

constexpr Phase kPhases[] = {Phase::Data, Phase::Forward, Phase::Loss,
                                     Phase::Backward, Phase::Optimizer};

// Resolves a navigator jump once the chunk holding it is loaded.
void resolve_jump(AppState& s) {
  if (!s.selection.jump_pending) return;
  bool exhausted = false;
  auto id = s.model.first_event_of(s.selection.step, s.selection.phase, &exhausted);
  if (id) {
    s.selection.select_event(*id);
  } else if (exhausted) {
    s.selection.jump_pending = false;  // nothing recorded there
  }
}

// The top bar's followed sample: "sample 3", with its label at the shown step when it has one ("sample 3:
// cat"); the keys that switch it ([ and ]) are in its tooltip, not in the text, where they read as empty
// brackets.
void draw_followed_sample(AppState& s, int sample) {
  std::vector<SampleEntry> here;
  s.model.samples().step_samples(s.selection.step, &here);
  std::string label;
  for (const auto& e : here)
    if (e.id == sample) label = e.label;
  if (label.empty()) ImGui::TextDisabled("sample %d", sample);
  else ImGui::TextDisabled("sample %d: %s", sample, label.c_str());
  if (ImGui::IsItemHovered()) {
    const size_t count = s.model.samples().followed().size();
    ImGui::SetTooltip("the followed sample the pages show (%zu followed)\n[ and ]: the previous / next one", count);
  }
}

}  // namespace

void draw_navigator(AppState& s) {
  if (!training_run(s)) return;  // a profile capture has no steps or phases to step through
  const int steps = s.model.step_count();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Step");
  ImGui::SameLine();
  if (steps <= 0) {
    ImGui::TextDisabled("no steps recorded");
  } else {
    if (ImGui::ArrowButton("##prev_step", ImGuiDir_Left) && s.selection.step > 0) {
      --s.selection.step;
      s.selection.jump_pending = true;
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    int shown = s.selection.step;
    if (ImGui::SliderInt("##step", &shown, 0, steps - 1, "%d") && shown != s.selection.step) {
      s.selection.step = std::clamp(shown, 0, steps - 1);
      s.selection.jump_pending = true;
    }
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next_step", ImGuiDir_Right) && s.selection.step + 1 < steps) {
      ++s.selection.step;
      s.selection.jump_pending = true;
    }
    ImGui::SameLine();
    ImGui::TextDisabled("of %d", steps);
  }
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  ImGui::TextUnformatted("Phase");
  for (Phase phase : kPhases) {
    ImGui::SameLine();
    const bool active = s.selection.phase == phase;
    if (active) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(phase_label(phase))) {
      s.selection.phase = active ? Phase::None : phase;
      s.selection.jump_pending = true;
    }
    if (active) ImGui::PopStyleColor();
  }
  if (const int sample = s.followed_sample(); sample >= 0) {
    ImGui::SameLine(0, ImGui::GetFontSize() * 2);
    draw_followed_sample(s, sample);
  }
  if (s.selection.jump_pending) {
    ImGui::SameLine();
    ImGui::TextDisabled("finding ...");
  }
  resolve_jump(s);
}

void step_event(AppState& s, int delta) {
  const uint64_t n = s.model.event_count();
  if (n == 0) return;
  std::optional<uint64_t>& e = s.selection.event;
  if (delta > 0) e = e ? std::min(*e + 1, n - 1) : 0;
  else e = e && *e > 0 ? *e - 1 : 0;
  s.selection.scroll_to = e;
}

void step_sample(AppState& s, int delta) {
  const auto& followed = s.model.samples().followed();
  if (followed.empty()) return;
  const int count = static_cast<int>(followed.size());
  int& cursor = s.selection.sample_cursor;
  cursor = (cursor + (delta > 0 ? 1 : count - 1)) % count;
}

void handle_keys(AppState& s) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  const PageSpec* shown = page_named(s.page);
  if (!shown || !shown->keys) {  // a page that reads the arrows itself (Replay) moves its own way
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) step_event(s, +1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) step_event(s, -1);
  }
  for (ImWchar c : io.InputQueueCharacters) {
    if (c == ']') step_sample(s, +1);
    if (c == '[') step_sample(s, -1);
  }
  // Keep the navigator on the selected event's step.
  if (s.selection.event && !s.selection.jump_pending)
    if (const CallRef call = s.model.call(*s.selection.event))
      if (call.step() >= 0) s.selection.step = call.step();
}

}  // namespace tvis::viewer
