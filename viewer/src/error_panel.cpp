// The readable error panel (a run that cannot be shown, chunks that failed)
// and the welcome panel (nothing opened yet).
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "app_state.h"
#include "theme.h"

namespace tvis::viewer {

void draw_error_panel(AppState& s, const std::vector<std::string>& errors) {
  if (errors.empty()) return;
  const bool fatal = s.model.status() == RunStatus::Failed;
  const float wrap = ImGui::GetFontSize() * 48;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.22f, 0.10f, 0.11f, 1.0f));
  const ImGuiStyle& style = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float width = std::min(wrap + style.WindowPadding.x * 2, ImGui::GetContentRegionAvail().x);
  // Height that fits the title, the messages (wrapped) and the buttons.
  float text_h = 0;
  const size_t shown = fatal ? errors.size() : std::min<size_t>(errors.size(), 6);
  for (size_t i = 0; i < shown; ++i)
    text_h += ImGui::CalcTextSize(errors[i].c_str(), nullptr, false, width - style.WindowPadding.x * 2).y +
              style.ItemSpacing.y;
  const float height = style.WindowPadding.y * 2 + line * 1.5f + text_h + (fatal ? ImGui::GetFrameHeightWithSpacing() + style.ItemSpacing.y : 0);
  if (fatal) ImGui::Dummy(ImVec2(0, line));
  ImGui::BeginChild("errors", ImVec2(fatal ? width : 0, height), true);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kError));
  if (fatal)
    ImGui::Text("Cannot open %s", s.model.source_name().empty() ? "the run" : s.model.source_name().c_str());
  else
    ImGui::Text("%zu part%s of this run could not be read", errors.size(), errors.size() == 1 ? "" : "s");
  ImGui::PopStyleColor();
  ImGui::Separator();
  ImGui::PushTextWrapPos(0.0f);
  for (const auto& e : errors) ImGui::TextUnformatted(e.c_str());
  ImGui::PopTextWrapPos();
  if (fatal) {
    ImGui::Spacing();
    if (ImGui::Button("Copy message")) ImGui::SetClipboardText(errors.front().c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s", s.welcome_hint.c_str());
  }
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

void draw_welcome(AppState& s) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::Dummy(ImVec2(0, avail.y * 0.3f));
  const char* title = "No run open";
  ImGui::SetCursorPosX((avail.x - ImGui::CalcTextSize(title).x) * 0.5f);
  ImGui::TextUnformatted(title);
  const float hint_w = ImGui::CalcTextSize(s.welcome_hint.c_str()).x;
  ImGui::SetCursorPosX(std::max(0.0f, (avail.x - hint_w) * 0.5f));
  ImGui::TextDisabled("%s", s.welcome_hint.c_str());
}

namespace {

// "812 B", "14.2 kB", "3.1 MB", "1.20 GB"
std::string human_bytes(double b) {
  char buf[32];
  if (b < 1e3) std::snprintf(buf, sizeof buf, "%.0f B", b);
  else if (b < 1e6) std::snprintf(buf, sizeof buf, "%.1f kB", b / 1e3);
  else if (b < 1e9) std::snprintf(buf, sizeof buf, "%.1f MB", b / 1e6);
  else std::snprintf(buf, sizeof buf, "%.2f GB", b / 1e9);
  return buf;
}

}  // namespace

void draw_status_bar(AppState& s) {
  // The frame time shown changes once a second: a number redrawn every frame
  // cannot be read, and an idle page then draws identical frames (which the
  // browser shell does not present).
  const double now = ImGui::GetTime();
  // Until a few dozen frames are in, the median still moves (the first
  // frames build fonts): follow it every frame.
  const bool settling = s.timing.stats.count() < 30;
  if (settling || now - s.timing.shown_at >= 1.0 || now < s.timing.shown_at) {
    s.timing.shown_ms = s.timing.stats.median();
    s.timing.shown_at = now;
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float h = ImGui::GetFrameHeight();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + vp->WorkSize.y - h));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, h));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 2));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImGui::GetStyleColorVec4(ImGuiCol_ChildBg));
  ImGui::Begin("status", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
  if (s.model.status() == RunStatus::Open) {
    const ChunkCache& cache = s.model.cache();
    ImGui::TextDisabled("%s  |  %s file, %s read  |  cache %s of %s, %zu chunks%s  |  %.2f ms/frame",
                        s.model.source_name().c_str(), human_bytes(static_cast<double>(s.model.file_size())).c_str(),
                        human_bytes(static_cast<double>(s.model.bytes_read())).c_str(),
                        human_bytes(static_cast<double>(cache.resident_bytes())).c_str(),
                        human_bytes(static_cast<double>(cache.budget_bytes())).c_str(), cache.resident_chunks(),
                        cache.in_flight() ? ", loading" : "", s.timing.shown_ms);
  } else {
    ImGui::TextDisabled("%.2f ms/frame", s.timing.shown_ms);
  }
  ImGui::End();
  ImGui::PopStyleColor();
  ImGui::PopStyleVar();
}

}  // namespace tvis::viewer
