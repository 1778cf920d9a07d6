// The run list (a runs folder): name, script, steps, date; click opens.
#include <imgui.h>

#include "app_state.h"
#include "ranks.h"
#include "theme.h"

namespace tvis::viewer {

void draw_run_list(AppState& s) {
  ImGui::Text("Runs (%zu)", s.runs.size());
  ImGui::SameLine();
  ImGui::TextDisabled("newest first; click a run to open it");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("runs", 5, flags, ImVec2(0, -ImGui::GetFrameHeightWithSpacing()))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Run", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableSetupColumn("Script", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableSetupColumn("Steps", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 4);
  ImGui::TableSetupColumn("Ranks", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 4);
  ImGui::TableSetupColumn("Date", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 13);
  ImGui::TableHeadersRow();
  int open_index = -1;
  for (size_t i = 0; i < s.runs.size(); ++i) {
    RunListRow& row = s.runs[i];
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable(row.entry.name.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) open_index = static_cast<int>(i);
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    s.drawn.runs[i] = Rect{a.x, a.y, b.x, b.y, true};
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
