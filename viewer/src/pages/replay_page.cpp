// Replay: the recorded steps played back (replay_state.h). Controls and the
// timeline strip on top; the model diagram on the left; the phase's own view
// on the right. This file lays them out, reads the keys, and answers the
// test surface (view, commands).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "tvis/links/page_names.h"
#include "../page.h"
#include "../theme.h"
#include "replay_state.h"

namespace tvis::viewer {

namespace {

void handle_replay_keys(AppState& s, ReplayState& r) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space))) r.playing = !r.playing;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) move(s, r, +1);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) move(s, r, -1);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) jump_phase(s, r, Phase::None, +1);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) jump_phase(s, r, Phase::None, -1);
}

void draw_replay_page(AppState& s) {
  if (!s.model.ready()) {  // the metadata (and a link's position) first: nothing is moved before
    ImGui::TextDisabled("opening ...");
    return;
  }
  ReplayState& r = replay_state(s);
  handle_replay_keys(s, r);
  update_position(s, r);
  r.layer_shown = false;
  r.notes.clear();

  {
    const Stop* st = current_stop(s, r);
    r.drawn_phase = st ? phase_label(st->phase) : "(loading)";
  }
  draw_replay_controls(s, r);
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float em = ImGui::GetFontSize();
  const float height = avail.y - ImGui::GetFrameHeight();  // the status bar
  const float left_w = std::clamp(avail.x * 0.32f, em * 16, em * 30);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(6, 6));
  ImGui::BeginChild("replay_diagram", ImVec2(left_w, height), true);
  draw_replay_diagram(s, r);
  ImGui::EndChild();
  ImGui::SameLine(0, style.ItemSpacing.x);
  ImGui::BeginChild("replay_phase", ImVec2(0, height), true);
  draw_replay_phase_view(s, r);
  ImGui::EndChild();
  ImGui::PopStyleVar();
}

nlohmann::json replay_view(AppState& s) {
  using nlohmann::json;
  ReplayState& r = replay_state(s);
  const Stop* st = current_stop(s, r);
  const int sample = replay_sample(s);
  json v = {{"step", r.step},
            {"phase", st ? phase_label(st->phase) : ""},
            {"event", st ? json(st->event) : json(nullptr)},
            {"module", st && !st->name.empty() ? json(st->name) : json(nullptr)},
            {"playing", r.playing},
            {"step_size", step_size_label(r.step_size)},
            {"sample", sample < 0 ? 0 : sample},
            {"layer", r.layer_shown ? layer_view_json(s.model, r.layer) : json(nullptr)}};
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  v["stop"] = r.stop;
  v["stops"] = plan ? static_cast<int>(plan->stops.size()) : 0;
  v["kind"] = st ? event_kind_label(st->kind) : "";
  v["loading"] = st == nullptr;
  json missing = json::object();  // the phases this step lacks, and why (the controls' tooltips)
  if (plan)
    for (Phase ph : {Phase::Data, Phase::Forward, Phase::Loss, Phase::Backward,
                             Phase::Optimizer})
      if (plan->first_of(ph) < 0) missing[phase_label(ph)] = missing_phase_reason(s, ph);
  v["missing"] = missing;
  v["notes"] = r.notes;  // what the last frame said in place about a missing part
  v["data"] = replay_data_json(s, r);
  const DiagramColours dc = diagram_colours(s, r);
  json colours = json::object();
  if (const Diagram* d = plan ? s.model.diagrams().at(r.step) : nullptr)
    for (size_t i = 0; i < dc.value.size(); ++i)
      if (dc.value[i] >= 0) colours[std::to_string(d->nodes[i].event)] = dc.value[i];
  v["diagram"] = {{"legend", dc.legend}, {"values", colours}};
  json by_phase = json::object();
  for (const auto& [phase, stats] : r.frame_ms_by_phase)
    by_phase[phase] = {{"frames", stats.count()}, {"median", stats.median()}, {"p99", stats.p99()}};
  v["frame_ms_by_phase"] = by_phase;  // the last 600 frames drawn in each phase
  return v;
}

// A number, or a link's text of one ("60", "2.5"); nothing otherwise.
std::optional<double> number_of(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string t = v.get<std::string>();
  char* end = nullptr;
  const double x = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

// Commands (docs/viewer_test_surface.md, Replay): keys, and the parts of a
// link Replay owns (phase, module, sample).
nlohmann::json replay_command(AppState& s, const nlohmann::json& cmd) {
  using nlohmann::json;
  ReplayState& r = replay_state(s);
  if (cmd.contains("key") && cmd["key"].is_string() && s.page == links::page::kReplay) {
    const std::string k = cmd["key"].get<std::string>();
    if (k == "space") r.playing = !r.playing;
    else if (k == "right") move(s, r, +1);
    else if (k == "left") move(s, r, -1);
    else if (k == "down") jump_phase(s, r, Phase::None, +1);
    else if (k == "up") jump_phase(s, r, Phase::None, -1);
    else return nullptr;  // "[", "]": the application's
    return true;
  }
  if (cmd.contains("phase")) {
    if (!cmd["phase"].is_string()) return false;
    const Phase p = phase_from_label(cmd["phase"].get<std::string>());
    if (p == Phase::None) return false;
    Landing l = r.stop < 0 && r.landing ? *r.landing : Landing{};
    l.kind = Landing::Match;
    l.phase = p;
    l.event.reset();
    r.landing = l;
    r.stop = -1;
    r.scroll_diagram = true;
    return true;
  }
  if (cmd.contains("module")) {
    if (!cmd["module"].is_string() && !cmd["module"].is_number_integer()) return false;
    Landing l = r.stop < 0 && r.landing ? *r.landing : Landing{};
    l.kind = Landing::Match;
    l.module = cmd["module"].is_string() ? cmd["module"].get<std::string>() : cmd["module"].dump();  // "0": a link's number
    l.event.reset();
    r.landing = l;
    r.stop = -1;
    r.scroll_diagram = true;
    return true;
  }
  if (cmd.contains("sample")) {
    const json& v = cmd["sample"];
    if (!v.is_number_integer()) return false;
    if (v.get<int>() < 0) return false;
    r.want_sample = v.get<int>();  // taken once the followed ids are read (update_position)
    return true;
  }
  if (cmd.contains("step_size")) {
    if (!cmd["step_size"].is_string()) return false;
    const std::string v = cmd["step_size"].get<std::string>();
    for (StepSize size : {StepSize::Layer, StepSize::Call, StepSize::Phase, StepSize::Batch})
      if (v == step_size_label(size)) {
        r.step_size = size;
        return true;
      }
    return false;
  }
  if (cmd.contains("play")) {
    const json& v = cmd["play"];  // a link's text too: play=true
    if (v.is_boolean()) r.playing = v.get<bool>();
    else if (v == "true" || v == "false") r.playing = v == "true";
    else return false;
    return true;
  }
  if (cmd.contains("speed")) {
    const std::optional<double> v = number_of(cmd["speed"]);
    if (!v) return false;
    r.speed = std::clamp(static_cast<float>(*v), 0.25f, 240.0f);
    return true;
  }
  if (cmd.contains("layer_neuron")) {  // what a click on a neuron (a bar, a map) picks; -1 drops it
    const std::optional<double> n = number_of(cmd["layer_neuron"]);
    if (!n || *n < -1 || *n != std::floor(*n)) return false;
    r.layer.picked_neuron = static_cast<int>(*n);
    return true;
  }
  if (cmd.contains("layer_query")) {  // On image of an attention layer: the token whose row is painted; -1: [CLS]
    const std::optional<double> n = number_of(cmd["layer_query"]);
    if (!n || *n < -1 || *n != std::floor(*n)) return false;
    r.layer.attention.query = static_cast<int>(*n);
    r.layer.attention.show = true;
    return true;
  }
  if (cmd.contains("layer_paint")) {  // On image of an attention layer: "attention" or "strength"
    if (cmd["layer_paint"] != "attention" && cmd["layer_paint"] != "strength") return false;
    r.layer.attention.show = cmd["layer_paint"] == "attention";
    return true;
  }
  if (cmd.contains("layer_tab")) {
    static const char* kTabs[] = {"On image", "Neurons", "Stats"};
    for (int i = 0; i < 3; ++i)
      if (cmd["layer_tab"] == kTabs[i]) {
        r.layer.tab = i;
        r.layer.tab_request = i;
        return true;
      }
    return false;
  }
  return nullptr;
}

}  // namespace

extern const PageSpec kReplayPage;

ReplayState& replay_state(AppState& s) { return page_state<ReplayState>(s, kReplayPage); }

namespace {

std::unique_ptr<PageState> make_replay_state(AppState& s) {
  auto r = std::make_unique<ReplayState>();
  r->synced_step = s.selection.step;
  r->step = s.selection.step;
  return r;
}

// The frame's time, counted under the phase Replay showed.
void replay_frame_measured(AppState& s, double ms) {
  ReplayState* r = existing_page_state<ReplayState>(s, kReplayPage);
  if (!r || r->drawn_phase.empty() || s.page != links::page::kReplay) return;
  r->frame_ms_by_phase[r->drawn_phase].add(ms);
  r->drawn_phase.clear();  // counted once: a frame that does not draw Replay is not Replay's
}

}  // namespace

PanelContext replay_panel_context(AppState& s) { return PanelContext{s.model, s.selection, s.options, nullptr}; }

const PageSpec kReplayPage = {tvis::links::page::kReplay, draw_replay_page, replay_view, replay_command, /*keys=*/true, training_run,
                              make_replay_state, nullptr,          nullptr,     nullptr,        replay_frame_measured};

}  // namespace tvis::viewer
