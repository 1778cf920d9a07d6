// Source: the recorded text of a traced file (kept inside the run), with the
// selected call's line highlighted and, per line, how many recorded calls
// were made from it (counted over the run's Events chunks as they load).
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <string_view>

#include "../theme.h"
#include "explore_state.h"

namespace tvis::viewer {

namespace {

constexpr size_t kCountSpansPerFrame = 16;

uint64_t line_key(uint32_t file, uint32_t line) { return (static_cast<uint64_t>(file) << 32) | line; }

void count_calls(AppState& s, SourceViewState& v) {
  const auto& spans = s.model.event_spans();
  for (size_t k = 0; k < kCountSpansPerFrame && v.counted_spans < spans.size(); ++k) {
    uint32_t next = 0;
    const RunModel::SpanWalk walk = s.model.walk_span_calls(spans[v.counted_spans], &next, [&](const CallRef& call) {
      if (call.call_line() > 0 && call.kind() != EventKind::PhaseBegin && call.kind() != EventKind::PhaseEnd)
        ++v.line_calls[line_key(call.call_file(), call.call_line())];
      return true;
    });
    if (walk.state == ChunkRead::Loading) return;
    ++v.counted_spans;
  }
  v.counting_done = v.counted_spans >= spans.size();
}

}  // namespace

void draw_source_view(AppState& s, ExploreState& x) {
  SourceViewState& v = x.source;
  count_calls(s, v);
  // Follow the selected call unless a link chose a line explicitly.
  if (s.selection.event != v.followed) {
    v.followed = s.selection.event;
    if (s.selection.event && !v.scroll_pending)
      if (const CallRef call = s.model.call(*s.selection.event))
        if (call.call_line() > 0) {
          v.file = call.call_file();
          v.has_file = true;
          v.highlight_line = static_cast<int>(call.call_line());
          v.scroll_pending = true;
        }
  }
  if (!v.has_file) {
    // Default: the first recorded file.
    const auto& names = s.model.source_files().names();
    if (!names.empty()) {
      v.file = std::min_element(names.begin(), names.end())->first;
      v.has_file = true;
    }
  }
  // File picker.
  const float em = ImGui::GetFontSize();
  const std::string& current = s.model.source_files().name(v.file);
  ImGui::SetNextItemWidth(std::min(em * 36, ImGui::GetContentRegionAvail().x * 0.6f));
  if (ImGui::BeginCombo("##file", current.empty() ? "(no file)" : current.c_str())) {
    std::vector<std::pair<std::string, uint32_t>> files;
    for (const auto& [id, name] : s.model.source_files().names()) files.emplace_back(name, id);
    std::sort(files.begin(), files.end());
    for (const auto& [name, id] : files)
      if (ImGui::Selectable(name.c_str(), id == v.file)) {
        v.file = id;
        v.highlight_line = 0;
      }
    ImGui::EndCombo();
  }
  if (v.highlight_line > 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("line %d", v.highlight_line);
  }
  ImGui::SameLine();
  ImGui::TextDisabled(v.counting_done ? "left column: calls made from the line" : "(counting calls ...)");

  bool loading = false;
  const std::optional<std::string_view> text =
      v.has_file ? s.model.source_files().text(v.file, &loading) : std::nullopt;
  if (!text) {
    if (loading) ImGui::TextDisabled("Loading source ...");
    else ImGui::TextDisabled("No source text recorded for %s: the run keeps the text of project files only.",
                             current.empty() ? "this file" : current.c_str());
    return;
  }
  // Line starts (cheap to recompute: source files are small).
  const std::string_view all = *text;
  std::vector<uint32_t> starts{0};
  for (uint32_t i = 0; i < all.size(); ++i)
    if (all[i] == '\n' && i + 1 < all.size()) starts.push_back(i + 1);
  const int lines = static_cast<int>(starts.size());

  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg;
  if (!ImGui::BeginTable("source", 3, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 0);
  ImGui::TableSetupColumn("calls", ImGuiTableColumnFlags_WidthFixed, em * 3.5f);
  ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed, em * 3);
  ImGui::TableSetupColumn("text", ImGuiTableColumnFlags_WidthStretch);
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
  if (v.scroll_pending && v.highlight_line > 0) {
    const float target = static_cast<float>(v.highlight_line - 1) * row_h - ImGui::GetWindowHeight() * 0.4f;
    ImGui::SetScrollY(std::max(0.0f, target));
    v.scroll_pending = false;
  }
  ImGuiListClipper clipper;
  clipper.Begin(lines, row_h);
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const int line = i + 1;
      ImGui::TableNextRow();
      if (line == v.highlight_line)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(60, 95, 150, 150));
      ImGui::TableSetColumnIndex(0);
      auto it = v.line_calls.find(line_key(v.file, static_cast<uint32_t>(line)));
      if (it != v.line_calls.end()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kAccent), "%u", it->second);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextDisabled("%d", line);
      ImGui::TableSetColumnIndex(2);
      const uint32_t a = starts[static_cast<size_t>(i)];
      uint32_t b = i + 1 < lines ? starts[static_cast<size_t>(i) + 1] : static_cast<uint32_t>(all.size());
      while (b > a && (all[b - 1] == '\n' || all[b - 1] == '\r')) --b;
      ImGui::TextUnformatted(all.data() + a, all.data() + b);
    }
  clipper.End();
  ImGui::EndTable();
}

}  // namespace tvis::viewer
