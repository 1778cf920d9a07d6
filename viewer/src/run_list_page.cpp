// The run list (a runs folder): name, script, steps, date; click opens.
#include <imgui.h>

#include "tvis/links/page_names.h"
#include "app_state.h"
#include "ranks.h"
#include "theme.h"

namespace tvis::viewer {

// Row `row` becomes the run compared with the shown one (the Compare page).
void compare_with_row(AppState& s, RunListRow& row) {
  auto source = row.entry.open ? row.entry.open()
                               : format::Result<std::shared_ptr<format::ByteSource>>(
                                     format::Status::error(format::ErrorCode::Io, "no source"));
  if (source.ok())
    s.open_compare(source.value());
  else
    s.fail_compare(row.entry.name + ": " + source.status().message);
  s.showing_run_list = false;
  s.page_request = links::page::kCompare;
}

bool compare_with_run_row(AppState& s, size_t index) {
  if (index >= s.runs.size() || s.model.status() != RunStatus::Open) return false;
  compare_with_row(s, s.runs[index]);
  return true;
}

void draw_run_list(AppState& s) {
  // A run is shown (the list was reopened with "< Runs"): each row can be compared with it.
  const bool can_compare = s.model.status() == RunStatus::Open;
  ImGui::Text("Runs (%zu)", s.runs.size());
  ImGui::SameLine();
  ImGui::TextDisabled(can_compare ? "newest first; click a run to open it, or Compare to see it beside the shown run"
                                  : "newest first; click a run to open it");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("runs", can_compare ? 6 : 5, flags, ImVec2(0, -ImGui::GetFrameHeightWithSpacing()))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Run", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableSetupColumn("Script", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableSetupColumn("Steps", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 4);
  ImGui::TableSetupColumn("Ranks", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 4);
  ImGui::TableSetupColumn("Date", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 13);
  if (can_compare) ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 11);
  ImGui::TableHeadersRow();
  int open_index = -1, compare_index = -1;
  for (size_t i = 0; i < s.runs.size(); ++i) {
    RunListRow& row = s.runs[i];
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushID(static_cast<int>(i));
    const ImGuiSelectableFlags row_flags =
        ImGuiSelectableFlags_SpanAllColumns | (can_compare ? ImGuiSelectableFlags_AllowItemOverlap : 0);
    if (ImGui::Selectable(row.entry.name.c_str(), false, row_flags)) open_index = static_cast<int>(i);
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    s.drawn.runs[i] = Rect{a.x, a.y, b.x, b.y, true};
    if (can_compare && row.entry.ranks.size() < 2) {
      ImGui::TableSetColumnIndex(5);
      if (ImGui::SmallButton("Compare with shown")) compare_index = static_cast<int>(i);
    }
    ImGui::PopID();
    ImGui::TableSetColumnIndex(1);
    if (!row.open_error.empty()) {
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kError), "%s", row.open_error.c_str());
      continue;
    }
    switch (row.model->status()) {
      case RunStatus::Open: {
        const RunInfo& info = row.model->info();
        ImGui::TextUnformatted(info.loaded ? info.script.c_str() : "...");
        ImGui::TableSetColumnIndex(2);
        ImGui::Text("%d", row.model->step_count());
        ImGui::TableSetColumnIndex(3);
        ImGui::Text("%zu", row.entry.ranks.size() < 2 ? size_t(1) : row.entry.ranks.size());
        ImGui::TableSetColumnIndex(4);
        ImGui::TextUnformatted(info.date.c_str());
        break;
      }
      case RunStatus::Failed:
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kError), "%s", row.model->error().c_str());
        break;
      default: ImGui::TextDisabled("opening ..."); break;
    }
  }
  ImGui::EndTable();
  if (compare_index >= 0) {
    compare_with_row(s, s.runs[static_cast<size_t>(compare_index)]);
    return;
  }
  if (open_index >= 0) {
    RunListRow& row = s.runs[static_cast<size_t>(open_index)];
    if (row.entry.ranks.size() >= 2) {  // a distributed run: its rank picker (the list stays for "< Runs")
      std::vector<RunListRow> list = std::move(s.runs);
      open_rank_set(s, row.entry.ranks, 0);
      s.runs = std::move(list);
      return;
    }
    s.ranks.clear();
    s.rank = 0;
    auto source = row.entry.open ? row.entry.open()
                                 : format::Result<std::shared_ptr<format::ByteSource>>(
                                       format::Status::error(format::ErrorCode::Io, "no source"));
    s.reset_navigation();
    s.showing_run_list = false;
    if (source.ok())
      s.model.open(source.value());
    else
      s.model.fail(row.entry.name + ": " + source.status().message);
  }
}

}  // namespace tvis::viewer
