// The top bar's rank picker of a distributed run: which rank's file the
// pages show, and what is wrong with the rank files (a warning in place).
#include <imgui.h>

#include "app_state.h"
#include "ranks.h"
#include "theme.h"

namespace tvis::viewer {

void draw_rank_picker(AppState& s) {
  if (s.ranks.single()) return;
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("rank");
  ImGui::SameLine();
  const std::string current = std::to_string(s.rank);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4);
  int picked = -1;
  if (ImGui::BeginCombo("##rank", current.c_str())) {
    for (const RankSource& src : s.ranks.sources()) {
      const std::string label = std::to_string(src.rank) + "  (" + src.name + ")";
      if (ImGui::Selectable(label.c_str(), src.rank == s.rank)) picked = src.rank;
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the rank whose recording the pages show; Loss and Weights show every rank");
  ImGui::SameLine();
  ImGui::TextDisabled("of %zu ranks", s.ranks.size());
  const auto problems = rank_file_problems(s);
  if (!problems.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kWarning), "%s", problems.front().c_str());
  }
  if (picked >= 0 && picked != s.rank) switch_rank(s, picked);
}

}  // namespace tvis::viewer
