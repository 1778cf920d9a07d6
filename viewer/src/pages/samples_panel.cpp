// Samples: the followed samples of each step, their labels and where they
// came from (dataset index, batch row), and each one's transform chain.
// Click a row to follow that sample (the same as [ / ]).
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <vector>

#include "../theme.h"
#include "explore_state.h"

namespace tvis::viewer {

void draw_samples_panel(AppState& s, ExploreState&) {
  Samples& samples = s.model.samples();
  if (!samples.any()) {
    ImGui::TextDisabled("This run follows no samples.");
    return;
  }
  const int followed = s.followed_sample();
  ImGui::TextDisabled("Followed sample: %d  ([ / ] or click a row to switch).  Showing step %d.", followed, s.selection.step);
  const float em = ImGui::GetFontSize();
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("samples", 6, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Sample", ImGuiTableColumnFlags_WidthFixed, em * 4);
  ImGui::TableSetupColumn("Label", ImGuiTableColumnFlags_WidthFixed, em * 8);
  ImGui::TableSetupColumn("Class #", ImGuiTableColumnFlags_WidthFixed, em * 4);
  ImGui::TableSetupColumn("Dataset idx", ImGuiTableColumnFlags_WidthFixed, em * 5.5f);
  ImGui::TableSetupColumn("Batch row", ImGuiTableColumnFlags_WidthFixed, em * 4.5f);
  ImGui::TableSetupColumn("Transforms", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  bool any = false;
  auto follow = [&](int id) {
    if (const int at = samples.position(id); at >= 0) s.selection.sample_cursor = at;
  };
  std::vector<SampleEntry> entries;
  const bool complete = samples.step_samples(s.selection.step, &entries);
  for (const SampleEntry& smp : entries) {
    any = true;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushID(smp.id);
    char label[32];
    std::snprintf(label, sizeof label, "%d", smp.id);
    if (ImGui::Selectable(label, smp.id == followed)) {  // this cell only: the chain has its own links
      follow(smp.id);
    }
    ImGui::PopID();
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(smp.label.c_str());
    ImGui::TableSetColumnIndex(2);
    if (smp.label_index >= 0) ImGui::Text("%" PRId64, smp.label_index);
    ImGui::TableSetColumnIndex(3);
    if (smp.dataset_index >= 0) ImGui::Text("%" PRId64, smp.dataset_index);
    ImGui::TableSetColumnIndex(4);
    if (smp.batch_position >= 0) ImGui::Text("%d", smp.batch_position);
    ImGui::TableSetColumnIndex(5);
    // The chain as links: each selects its Transform call (tensor in the inspector).
    if (smp.transforms.empty()) ImGui::TextDisabled("(no transforms recorded)");
    for (size_t k = 0; k < smp.transforms.size(); ++k) {
      const TransformEntry& t = smp.transforms[k];
      if (k) {
        ImGui::SameLine(0, 4);
        ImGui::TextDisabled("->");
        ImGui::SameLine(0, 4);
      }
      const char* label = !t.class_name.empty() ? t.class_name.c_str() : !t.name.empty() ? t.name.c_str() : "?";
      ImGui::PushID(static_cast<int>(k));
      const bool current = s.selection.event && *s.selection.event == t.event;
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(current ? 0xFFFFFFFF : colors::kAccent));
      ImGui::TextUnformatted(label);
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) {
        ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
        ImGui::SetTooltip("%s (call #%" PRIu64 ")", !t.name.empty() ? t.name.c_str() : label, t.event);
      }
      if (ImGui::IsItemClicked()) {
        s.selection.select_event(t.event);
        follow(smp.id);
      }
      ImGui::PopID();
    }
  }
  ImGui::EndTable();
  if (!complete) ImGui::TextDisabled("loading ...");
  else if (!any) ImGui::TextDisabled("No samples recorded in step %d.", s.selection.step);
}

}  // namespace tvis::viewer
