// Explore: the full debugger page. Call tree (left), inspector (right) and a
// bottom strip of panels (timeline, source, layers, steps, samples). Each
// panel is its own file (explore_state.h lists them); this file lays them out
// and holds the helpers they share.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <memory>
#include <string>

#include "../theme.h"
#include "explore_state.h"

namespace tvis::viewer {

namespace {

constexpr int kMaxDepthWalk = 256;
constexpr int kTensorChunkLoadsPerFrame = 2;  // Tensors chunks decoded per frame (TensorIndex::begin_frame)

ExploreState& explore_state(AppState& s) {
  if (!s.explore || s.explore->generation != s.run_generation) {
    s.explore = std::make_shared<ExploreState>();
    s.explore->generation = s.run_generation;
    s.explore->view.texture.release();
  }
  return *s.explore;
}

struct Tab {
  BottomTab id;
  const char* label;
  void (*draw)(AppState&, ExploreState&);
};
constexpr Tab kTabs[] = {{BottomTab::Steps, "Steps", draw_step_view},
                         {BottomTab::Timeline, "Timeline", draw_timeline},
                         {BottomTab::Source, "Source", draw_source_view},
                         {BottomTab::Layers, "Layers", draw_layers_table},
                         {BottomTab::Samples, "Samples", draw_samples_panel}};

void draw_bottom_tabs(AppState& s, ExploreState& x) {
  if (!s.show_panel.empty()) {
    if (auto tab = explore_panel_named(s.show_panel)) x.open_tab = *tab;
    s.show_panel.clear();
  }
  if (!ImGui::BeginTabBar("explore_panels")) return;
  for (const Tab& tab : kTabs) {
    ImGuiTabItemFlags f = 0;
    if (x.open_tab && *x.open_tab == tab.id) f |= ImGuiTabItemFlags_SetSelected;
    if (ImGui::BeginTabItem(tab.label, nullptr, f)) {
      ImGui::BeginChild("panel", ImVec2(0, 0), false);
      tab.draw(s, x);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
  }
  x.open_tab.reset();
  ImGui::EndTabBar();
}

}  // namespace

// ----------------------------------------------------------- helpers ---

std::optional<BottomTab> explore_panel_named(const std::string& name) {
  for (const Tab& tab : kTabs)
    if (name == tab.label) return tab.id;
  return std::nullopt;
}

ImU32 phase_color(schema::Phase phase) {
  switch (phase) {
    case schema::Phase::Data: return IM_COL32(72, 190, 180, 255);
    case schema::Phase::Forward: return IM_COL32(86, 150, 245, 255);
    case schema::Phase::Loss: return IM_COL32(240, 150, 70, 255);
    case schema::Phase::Backward: return IM_COL32(190, 110, 225, 255);
    case schema::Phase::Optimizer: return IM_COL32(100, 200, 120, 255);
    default: return IM_COL32(120, 125, 135, 255);
  }
}

std::string call_site(AppState& s, uint32_t file, uint32_t line) {
  if (line == 0) return {};
  const std::string& name = file_name(s, file);
  std::string shown = name.empty() ? "file " + std::to_string(file) : name;
  const size_t slash = shown.find_last_of('/');
  if (slash != std::string::npos) shown = shown.substr(slash + 1);
  return shown + ":" + std::to_string(line);
}

void select_event(AppState& s, uint64_t id) {
  s.selected_event = id;
  s.scroll_to = id;
  s.jump_pending = false;
}

void show_source(ExploreState& x, uint32_t file, uint32_t line) {
  x.source.file = file;
  x.source.has_file = true;
  x.source.highlight_line = static_cast<int>(line);
  x.source.scroll_pending = true;
  x.open_tab = BottomTab::Source;
}

std::string duration_label(int64_t ns) {
  char buf[32];
  const double v = static_cast<double>(ns);
  if (ns < 1000) std::snprintf(buf, sizeof buf, "%" PRId64 " ns", ns);
  else if (ns < 1000000) std::snprintf(buf, sizeof buf, "%.3g us", v / 1e3);
  else if (ns < 1000000000) std::snprintf(buf, sizeof buf, "%.3g ms", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.3g s", v / 1e9);
  return buf;
}

int event_depth(AppState& s, uint64_t id) {
  auto hit = s.depth_cache.find(id);
  if (hit != s.depth_cache.end()) return hit->second;
  // Walk up through loaded parents; stop (without caching) at an unloaded one.
  std::vector<uint64_t> chain;
  int base = 0;
  uint64_t cur = id;
  for (int guard = 0; guard < kMaxDepthWalk; ++guard) {
    auto known = s.depth_cache.find(cur);
    if (known != s.depth_cache.end()) {
      base = known->second;
      break;
    }
    const schema::Event* e = s.model.event(cur);
    if (!e && s.model.event_state(cur) != EventState::NotRecorded) return 0;  // loading: ask again next frame
    chain.push_back(cur);
    if (!e) {  // a call that was never written (still open when the run ended): a root
      base = -1;
      break;
    }
    if (e->parent() < 0 || static_cast<uint64_t>(e->parent()) >= cur) {  // top level, or a malformed cycle
      base = -1;
      break;
    }
    cur = static_cast<uint64_t>(e->parent());
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) s.depth_cache[*it] = ++base;
  return s.depth_cache.count(id) ? s.depth_cache[id] : 0;
}

const std::string& file_name(AppState& s, uint32_t id) {
  static const std::string kEmpty;
  if (!s.files_indexed) {
    bool all = true;
    for (uint32_t ordinal : s.model.chunks_of_kind(format::ChunkKind::SourceFiles)) {
      if (s.model.cache().failure(ordinal)) continue;
      auto chunk = s.model.cache().get_pinned(ordinal);
      if (!chunk) {
        all = false;
        continue;
      }
      const auto* files = chunk->root() ? chunk->root()->body_as_SourceFiles() : nullptr;
      if (!files || !files->files()) continue;
      for (const auto* f : *files->files()) {
        const auto* shown = f->display_path() && f->display_path()->size() ? f->display_path() : f->path();
        s.file_names[f->id()] = shown ? shown->str() : std::string();
      }
    }
    s.files_indexed = all;
  }
  auto it = s.file_names.find(id);
  return it == s.file_names.end() ? kEmpty : it->second;
}

// -------------------------------------------------------------- layout ---

void draw_explore_page(AppState& s) {
  ExploreState& x = explore_state(s);
  x.tensors.begin_frame(kTensorChunkLoadsPerFrame);
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float em = ImGui::GetFontSize();
  const float status_h = ImGui::GetFrameHeight();
  const float height = avail.y - status_h;
  const float bottom_h = std::max(em * 11, height * 0.36f);
  const float top_h = std::max(em * 8, height - bottom_h - style.ItemSpacing.y);
  const float inspector_w = std::max(em * 26, avail.x * 0.38f);

  // Left column: call tree over the panel strip. Right column: inspector, full height.
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(6, 6));
  const float left_w = avail.x - inspector_w - style.ItemSpacing.x;
  ImGui::BeginGroup();
  ImGui::BeginChild("calls", ImVec2(left_w, top_h), true);
  draw_call_tree(s, x);
  ImGui::EndChild();
  ImGui::BeginChild("bottom", ImVec2(left_w, std::max(em * 4, height - top_h - style.ItemSpacing.y)), true);
  draw_bottom_tabs(s, x);
  ImGui::EndChild();
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginChild("inspector", ImVec2(0, height), true);
  draw_inspector(s, x);
  ImGui::EndChild();
  ImGui::PopStyleVar();
}

}  // namespace tvis::viewer
