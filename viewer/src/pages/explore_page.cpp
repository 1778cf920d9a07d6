// Explore: the full debugger page. Call tree (left), inspector (right) and a
// bottom strip of panels (timeline, source, layers, steps, samples). Each
// panel is its own file (explore_state.h lists them); this file lays them out
// and holds the helpers they share.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <memory>
#include <string>

#include "tvis/links/page_names.h"
#include "tvis/viewer/source_opener.h"
#include "../theme.h"
#include "../page.h"
#include "explore_state.h"

namespace tvis::viewer {

extern const PageSpec kExplorePage;

namespace {

ExploreState& explore_state(AppState& s) { return page_state<ExploreState>(s, kExplorePage); }

std::unique_ptr<PageState> make_explore_state(AppState&) { return std::make_unique<ExploreState>(); }

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

void show_source(ExploreState& x, uint32_t file, uint32_t line) {
  x.source.file = file;
  x.source.has_file = true;
  x.source.highlight_line = static_cast<int>(line);
  x.source.scroll_pending = true;
  x.open_tab = BottomTab::Source;
}

PanelContext explore_panel_context(AppState& s, ExploreState& x) {
  return PanelContext{s.model, s.selection, s.options, [&x, &s](uint32_t file, uint32_t line) {
                        show_source(x, file, line);
                        if (const SourceOpener& open = source_opener()) open(s.model.source_files().name(file), line);
                      }};
}

// -------------------------------------------------------------- layout ---

namespace {

void draw_explore_page(AppState& s) {
  ExploreState& x = explore_state(s);
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
  PanelContext panels = explore_panel_context(s, x);
  draw_inspector(panels, x.inspector);
  ImGui::EndChild();
  ImGui::PopStyleVar();
}

// The selected step's phase timings: the user's, tvis's own and wall time
// (ms; own_ms null where the run did not record own time).
nlohmann::json phase_times_json(const RunInfo& info, int step) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : info.phase_timings) {
    if (t.step != step || t.ns < 0) continue;
    const UserTime ut = phase_time(t.ns, t.own_ns);
    out.push_back({{"phase", phase_label(t.phase)},
                   {"wall_ms", static_cast<double>(ut.wall) / 1e6},
                   {"user_ms", static_cast<double>(ut.user) / 1e6},
                   {"own_ms", ut.known ? nlohmann::json(static_cast<double>(ut.own) / 1e6) : nlohmann::json(nullptr)}});
  }
  return out;
}

// What Explore shows, for state()["view"].
nlohmann::json explore_view(AppState& s) {
  const Selection& sel = s.selection;
  ExploreState& x = explore_state(s);
  const TimelineState& tl = x.timeline;
  nlohmann::json timeline = {{"clock", tl.wall_clock || !tl.own_known ? "wall" : "user"},
                             {"step", tl.step},
                             {"calls", tl.calls},
                             {"own_recorded", tl.own_known},
                             {"own_ms", tl.own_known ? nlohmann::json(static_cast<double>(tl.own_ns) / 1e6)
                                                     : nlohmann::json(nullptr)},
                             {"own_bars", tl.own_bars}};
  nlohmann::json event_time = nullptr;
  if (sel.event)
    if (const CallRef call = s.model.call(*sel.event)) {
      const UserTime ut = tvis::viewer::event_time(call);
      event_time = {{"wall_ms", static_cast<double>(ut.wall) / 1e6},
                    {"user_ms", static_cast<double>(ut.user) / 1e6},
                    {"own_ms", ut.known ? nlohmann::json(static_cast<double>(ut.own) / 1e6) : nlohmann::json(nullptr)}};
    }
  return {{"step", sel.step},
          {"phase", phase_label(sel.phase)},
          {"event", sel.event ? nlohmann::json(*sel.event) : nlohmann::json(nullptr)},
          {"event_time", event_time},
          {"phase_times", phase_times_json(s.model.info(), sel.step)},
          {"timeline", timeline},
          {"layer", x.inspector.layer_drawn ? layer_view_json(s.model, x.inspector.layer) : nlohmann::json(nullptr)}};
}

// {"panel": NAME} brings up one of the bottom panels (as a click on its tab).
// {"panels": true} lists their names. {"source_link": "called_from" |
// "defined_at"}: the selected call's source link, as a click on it.
nlohmann::json explore_command(AppState& s, const nlohmann::json& cmd) {
  if (cmd.contains("panels")) {
    nlohmann::json names = nlohmann::json::array();
    for (const Tab& tab : kTabs) names.push_back(tab.label);
    return names;
  }
  if (cmd.contains("timeline_clock")) {  // the Timeline's clock: "user" (the default) or "wall"
    const nlohmann::json& c = cmd["timeline_clock"];
    if (!c.is_string() || (c != "user" && c != "wall")) return false;
    explore_state(s).timeline.wall_clock = c == "wall";
    explore_state(s).timeline.fitted = false;
    return true;
  }
  if (cmd.contains("layer_view")) {  // the inspector's Layer view (a module call's On image / Neurons / Stats)
    if (!cmd["layer_view"].is_boolean()) return false;
    explore_state(s).inspector.show_layer = cmd["layer_view"].get<bool>();
    return true;
  }
  if (cmd.contains("source_link")) {  // the selected call's "called from" / "defined at" link, as a click on it
    const nlohmann::json& which = cmd["source_link"];
    if (!which.is_string() || (which != "called_from" && which != "defined_at") || !s.selection.event) return false;
    const CallRef e = s.model.call(*s.selection.event);
    if (!e) return false;
    const bool def = which == "defined_at";
    const uint32_t file = def ? e.def_file() : e.call_file(), line = def ? e.def_line() : e.call_line();
    if (line == 0) return false;
    explore_panel_context(s, explore_state(s)).show_source(file, line);
    return true;
  }
  if (!cmd.contains("panel")) return nullptr;
  const nlohmann::json& name = cmd["panel"];
  if (!name.is_string() || !explore_panel_named(name.get<std::string>())) return false;
  s.show_panel = name.get<std::string>();
  return true;
}

}  // namespace

extern const PageSpec kExplorePage;
const PageSpec kExplorePage = {tvis::links::page::kExplore, draw_explore_page, explore_view, explore_command, false, training_run,
                                make_explore_state};

}  // namespace tvis::viewer
