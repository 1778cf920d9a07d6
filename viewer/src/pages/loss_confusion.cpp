// The Loss page's confusion matrix: true class (rows) against predicted
// class (columns), counted over every sample of every recorded batch, as
// counts or row-normalised (row_normalised()), classes named where the
// followed samples carry their labels (class_names_recorded()). Up to kTableClasses classes it is a table with
// coloured cells (numbers readable), beyond that a heatmap (hover: exact).
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <map>
#include <string>
#include <vector>

#include "../theme.h"
#include "loss_state.h"
#include "tvis/widgets/colormap.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

namespace {

constexpr int kTableClasses = 16;
constexpr size_t kColumnName = 6;  // a column shows at most this many characters of its class's name

// A column's header: the class's index, or its name cut to kColumnName
// characters (the row labels and the tooltip give it in full).
std::string column_label(const std::map<int64_t, std::string>& names, int64_t c) {
  auto it = names.find(c);
  if (it == names.end()) return std::to_string(c);
  return it->second.size() <= kColumnName ? it->second : it->second.substr(0, kColumnName - 1) + ".";
}

}  // namespace

void draw_loss_confusion(AppState& s, LossState& l) {
  const Confusion& c = s.model.loss_analysis().confusion();
  ImGui::Text("Confusion matrix");
  if (c.state == AnalysisState::Unavailable) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kMuted));
    ImGui::TextWrapped("%s", c.why.c_str());
    ImGui::PopStyleColor();
    return;
  }
  ImGui::SameLine();
  ImGui::TextDisabled("(%" PRId64 " samples of %d batches%s)", c.samples, c.batches,
                      c.state == AnalysisState::Loading ? ", still reading" : "");
  ImGui::SameLine();
  ImGui::Checkbox("row-normalised", &l.normalised);
  if (c.classes == 0) return;
  const int n = c.classes;
  std::vector<double> shown = l.normalised ? row_normalised(c) : std::vector<double>(c.counts.begin(), c.counts.end());
  const auto& names = class_names_recorded(s, l);
  const double hi = *std::max_element(shown.begin(), shown.end());
  const widgets::ColorRange range{0, hi > 0 ? hi : 1};
  if (n > kTableClasses) {
    widgets::HeatmapOptions o;
    o.size = ImVec2(0, std::max(ImGui::GetFontSize() * 10, ImGui::GetContentRegionAvail().y - 4));
    o.has_range = true;
    o.range = range;
    o.uploader = s.options.texture_uploader;
    o.texture = &l.confusion_texture;
    o.data_version = static_cast<uint64_t>(c.samples) * 2 + (l.normalised ? 1 : 0);
    ImGui::TextDisabled("rows: true class, columns: predicted");
    widgets::heatmap("##confusion", widgets::ValueSpan(shown), n, n, o);
    return;
  }
  ImGui::TextDisabled("rows: true class, columns: predicted class");
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedSame;
  if (!ImGui::BeginTable("confusion", n + 1, flags)) return;
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  ImGui::TableNextColumn();
  ImGui::TextDisabled("t \\ p");
  for (int p = 0; p < n; ++p) {
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", column_label(names, p).c_str());
  }
  for (int t = 0; t < n; ++t) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", class_label(names, t).c_str());
    for (int p = 0; p < n; ++p) {
      ImGui::TableNextColumn();
      const double v = shown[static_cast<size_t>(t * n + p)];
      const widgets::Rgb8 rgb = widgets::colormap_rgb(widgets::Colormap::Sequential, widgets::color_range_t(range, v));
      ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, IM_COL32(rgb.r, rgb.g, rgb.b, 255));
      const bool light = widgets::perceived_lightness(rgb) > 60;
      ImGui::PushStyleColor(ImGuiCol_Text, light ? IM_COL32(10, 10, 10, 255) : IM_COL32(240, 240, 240, 255));
      if (l.normalised) ImGui::Text("%.2f", v);
      else ImGui::Text("%" PRId64, c.counts[static_cast<size_t>(t * n + p)]);
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("true %s, predicted %s: %" PRId64 " samples%s", class_label(names, t).c_str(),
                          class_label(names, p).c_str(), c.counts[static_cast<size_t>(t * n + p)],
                          t == p ? " (correct)" : "");
    }
  }
  ImGui::EndTable();
}

}  // namespace tvis::viewer
