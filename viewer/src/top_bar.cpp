// The top bar: what run this is (script, argv, date, device) and its notices.
#include <imgui.h>

#include "app_state.h"
#include "page.h"
#include "ranks.h"
#include "theme.h"

namespace tvis::viewer {

namespace {

std::string join_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (size_t i = 1; i < argv.size(); ++i) {  // argv[0] is the script
    if (!out.empty()) out += ' ';
    out += argv[i];
  }
  return out;
}

void draw_notices(AppState& s, const RunInfo& info) {
  std::vector<std::string> notices = info.notices;
  if (!s.model.recovery_notice().empty()) notices.insert(notices.begin(), s.model.recovery_notice());
  if (notices.empty()) return;
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Button, ImGui::ColorConvertU32ToFloat4(0xFF2A4A5A));
  char label[48];
  std::snprintf(label, sizeof label, "%zu notice%s", notices.size(), notices.size() == 1 ? "" : "s");
  if (ImGui::SmallButton(label)) ImGui::OpenPopup("notices");
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
    for (const auto& n : notices) ImGui::BulletText("%s", n.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  if (ImGui::BeginPopup("notices")) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
    for (const auto& n : notices) {
      ImGui::BulletText("%s", n.c_str());
      if (ImGui::IsItemClicked()) ImGui::SetClipboardText(n.c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::TextDisabled("click a notice to copy it");
    ImGui::EndPopup();
  }
}

}  // namespace

void draw_top_bar(AppState& s) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kAccent));
  ImGui::TextUnformatted("tvis");
  ImGui::PopStyleColor();
  ImGui::SameLine();

  if (s.showing_run_list && s.model.status() == RunStatus::Empty) {
    ImGui::TextDisabled("%zu runs", s.runs.size());
  } else if (s.model.status() == RunStatus::Open) {
    if (!s.runs.empty()) {
      if (ImGui::SmallButton("< Runs")) s.showing_run_list = true;
      ImGui::SameLine();
    }
    const RunInfo& info = s.model.info();
    const std::string& script = info.script.empty() ? s.model.source_name() : info.script;
    ImGui::TextUnformatted(script.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.model.source_name().c_str());
    draw_rank_picker(s);
    std::string args = join_argv(info.argv);
    if (!args.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("%s", args.c_str());
    }
    if (!info.date.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("|  %s", info.date.c_str());
    }
    if (!info.device.empty()) {
      ImGui::SameLine();
      ImGui::TextDisabled("|  %s", info.device.c_str());
    }
    if (!info.loaded) {
      ImGui::SameLine();
      ImGui::TextDisabled("(loading metadata ...)");
    }
    if (s.model.live() && s.model.growths() > 0) {  // grew since it opened: being written (live_run.h)
      ImGui::SameLine();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "live: %d steps so far",
                         s.model.step_count());
    } else if (!s.model.complete()) {
      ImGui::SameLine();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "incomplete");
    }
    draw_notices(s, info);
    for (const PageSpec* page : registered_pages())
      if (page->top_bar_badge) page->top_bar_badge(s);
    if (!info.exception.empty()) {
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kError), "Run ended with: %s", info.exception.c_str());
    }
  } else if (s.model.status() == RunStatus::Opening && !s.ranks.single()) {
    draw_rank_picker(s);  // a rank switch in flight: the picker stays
    ImGui::SameLine();
    ImGui::TextDisabled("opening %s ...", s.model.source_name().c_str());
  } else {
    ImGui::TextDisabled("step-through debugger for PyTorch training");
  }
  ImGui::Separator();
}

}  // namespace tvis::viewer
