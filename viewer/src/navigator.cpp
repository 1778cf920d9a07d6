// The step/phase navigator and the keyboard: choosing where in the run to look.
#include <imgui.h>

#include <algorithm>

#include "app_state.h"
#include "theme.h"
#include "tvis/format/chunk_kind.h"

namespace tvis::viewer {

namespace {

constexpr schema::Phase kPhases[] = {schema::Phase::Data, schema::Phase::Forward, schema::Phase::Loss,
                                     schema::Phase::Backward, schema::Phase::Optimizer};

// Followed samples: ids from the run's first Samples chunk (loaded lazily).
void load_sample_ids(AppState& s) {
  if (!s.sample_ids.empty() || s.samples_indexed) return;
  for (const auto& span : s.model.chunks_of_kind(format::ChunkKind::Samples)) {
    if (s.model.cache().failure(span)) continue;
    auto chunk = s.model.cache().get_pinned(span);
    if (!chunk) return;  // loading: try next frame
    const auto* batch = chunk->root() ? chunk->root()->body_as_SampleBatch() : nullptr;
    if (batch && batch->samples())
      for (const auto* sample : *batch->samples())
        if (std::find(s.sample_ids.begin(), s.sample_ids.end(), sample->id()) == s.sample_ids.end())
          s.sample_ids.push_back(sample->id());
    if (!s.sample_ids.empty()) break;  // the first step's samples name them all
  }
  s.samples_indexed = true;
}

// Resolves a navigator jump once the chunk holding it is loaded.
void resolve_jump(AppState& s) {
  if (!s.jump_pending) return;
  bool exhausted = false;
  auto id = s.model.first_event_of(s.nav_step, s.nav_phase, &exhausted);
  if (id) {
    s.selected_event = *id;
    s.scroll_to = *id;
    s.jump_pending = false;
  } else if (exhausted) {
    s.jump_pending = false;  // nothing recorded there
  }
}

}  // namespace

void draw_navigator(AppState& s) {
  load_sample_ids(s);
  const int steps = s.model.step_count();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Step");
  ImGui::SameLine();
  if (steps <= 0) {
    ImGui::TextDisabled("no steps recorded");
  } else {
    if (ImGui::ArrowButton("##prev_step", ImGuiDir_Left) && s.nav_step > 0) {
      --s.nav_step;
      s.jump_pending = true;
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    int shown = s.nav_step;
    if (ImGui::SliderInt("##step", &shown, 0, steps - 1, "%d") && shown != s.nav_step) {
      s.nav_step = std::clamp(shown, 0, steps - 1);
      s.jump_pending = true;
    }
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next_step", ImGuiDir_Right) && s.nav_step + 1 < steps) {
      ++s.nav_step;
      s.jump_pending = true;
    }
    ImGui::SameLine();
    ImGui::TextDisabled("of %d", steps);
  }
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  ImGui::TextUnformatted("Phase");
  for (schema::Phase phase : kPhases) {
    ImGui::SameLine();
    const bool active = s.nav_phase == phase;
    if (active) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(phase_label(phase))) {
      s.nav_phase = active ? schema::Phase::None : phase;
      s.jump_pending = true;
    }
    if (active) ImGui::PopStyleColor();
  }
  if (!s.sample_ids.empty()) {
    ImGui::SameLine(0, ImGui::GetFontSize() * 2);
    ImGui::TextDisabled("sample %d ([ / ])", s.sample_ids[static_cast<size_t>(s.sample_cursor)]);
  }
  if (s.jump_pending) {
    ImGui::SameLine();
    ImGui::TextDisabled("finding ...");
  }
  resolve_jump(s);
}

void handle_keys(AppState& s) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  const uint64_t n = s.model.event_count();
  if (n > 0) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) {
      s.selected_event = s.selected_event ? std::min(*s.selected_event + 1, n - 1) : 0;
      s.scroll_to = s.selected_event;
    }
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) {
      s.selected_event = s.selected_event && *s.selected_event > 0 ? *s.selected_event - 1 : 0;
      s.scroll_to = s.selected_event;
    }
  }
  if (!s.sample_ids.empty()) {
    const int count = static_cast<int>(s.sample_ids.size());
    for (ImWchar c : io.InputQueueCharacters) {
      if (c == ']') s.sample_cursor = (s.sample_cursor + 1) % count;
      if (c == '[') s.sample_cursor = (s.sample_cursor + count - 1) % count;
    }
  }
  // Keep the navigator on the selected event's step.
  if (s.selected_event && !s.jump_pending)
    if (const schema::Event* e = s.model.event(*s.selected_event))
      if (e->step() >= 0) s.nav_step = e->step();
}

}  // namespace tvis::viewer
