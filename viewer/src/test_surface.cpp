#include "test_surface.h"

#include <string>

#include "app_state.h"
#include "link.h"
#include "live_run.h"
#include "page.h"
#include "ranks.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

json run_object(AppState& s) {
  if (!s.model.ready()) return nullptr;
  json run = {{"source", s.model.source_name()}, {"steps", s.model.step_count()}, {"events", s.model.event_count()},
              {"rank", shown_rank(s)}, {"ranks", rank_count(s)}};
  add_live_keys(s, run);
  if (!s.ranks.single()) {
    json files = json::array();
    for (const RankSource& src : s.ranks.sources()) files.push_back({{"rank", src.rank}, {"name", src.name}});
    run["rank_files"] = files;
    run["rank_problems"] = rank_file_problems(s);
  }
  return run;
}

json runs_array(AppState& s) {
  if (!s.showing_run_list) return nullptr;
  json runs = json::array();
  for (auto& row : s.runs) {
    const bool open = row.model->status() == RunStatus::Open;
    const RunInfo& info = open ? row.model->info() : RunInfo{};
    runs.push_back({{"name", row.entry.name},
                    {"script", info.script},
                    {"steps", open ? row.model->step_count() : 0},
                    {"ranks", row.entry.ranks.size() < 2 ? 1 : static_cast<int>(row.entry.ranks.size())},
                    {"date", info.date}});
  }
  return runs;
}

json selection_object(AppState& s) {
  const Selection& sel = s.selection;
  if (!s.model.ready() || !sel.event) return nullptr;
  json out = {{"event", *sel.event}};
  if (const CallRef call = s.model.call(*sel.event)) {
    out["name"] = std::string(call.name());
    out["kind"] = event_kind_label(call.kind());
    out["step"] = call.step();
    out["phase"] = phase_label(call.phase());
  } else if (s.model.event_state(*sel.event) == EventState::NotRecorded) {
    out["not_recorded"] = s.model.not_recorded_label();
  }
  if (sel.tensor) out["tensor"] = *sel.tensor;
  const auto& followed = s.model.samples().followed_known();
  if (!followed.empty()) out["sample"] = followed[static_cast<size_t>(sel.sample_cursor)];
  return out;
}

json page_names(AppState& s) {
  json names = json::array();
  for (const PageSpec* page : registered_pages())
    if (page_present(s, *page)) names.push_back(page->name);
  return names;
}

// [x0, y0, x1, y1] of the row drawn for `key` last frame, or null.
template <typename Key>
json rect_json(const std::unordered_map<Key, Rect>& rects, Key key) {
  auto it = rects.find(key);
  if (it == rects.end()) return nullptr;
  const Rect& r = it->second;
  return json::array({r.x0, r.y0, r.x1, r.y1});
}

// A page command ("panel"): the shown page first, then the others.
json page_command(AppState& s, const json& cmd) {
  const PageSpec* shown = page_named(s.page);
  if (shown && shown->command) {
    json r = shown->command(s, cmd);
    if (!r.is_null()) return r;
  }
  for (const PageSpec* page : registered_pages()) {
    if (page == shown || !page->command) continue;
    json r = page->command(s, cmd);
    if (!r.is_null()) return r;
  }
  return nullptr;
}

json key_command(AppState& s, const std::string& key) {
  if (const PageSpec* shown = page_named(s.page); shown && shown->keys && shown->command) {
    json r = shown->command(s, json{{"key", key}});  // the page's own keys (Replay: arrows, space)
    if (!r.is_null()) return r;
  }
  if (key == "right") step_event(s, +1);
  else if (key == "left") step_event(s, -1);
  else if (key == "]") step_sample(s, +1);
  else if (key == "[") step_sample(s, -1);
  else return false;
  return true;
}

uint64_t id_of(const json& v) { return v.is_number() && v.get<double>() >= 0 ? v.get<uint64_t>() : UINT64_MAX; }

}  // namespace

json state_object(AppState& s) {
  // A run is reported once its metadata settled, so `steps` never changes
  // after `run` first appears.
  if (s.model.status() == RunStatus::Open) s.model.info();
  const bool run_open = s.model.ready();
  const PageSpec* shown = run_open ? page_named(s.page) : nullptr;
  json j = json::object();
  j["run"] = run_object(s);
  j["runs"] = runs_array(s);
  j["page"] = run_open ? s.page : std::string();
  j["pages"] = run_open ? page_names(s) : json::array();
  for (const PageSpec* page : registered_pages())
    if (page->state_keys) page->state_keys(s, j);
  j["selection"] = selection_object(s);
  j["view"] = shown && shown->view ? shown->view(s) : json(nullptr);
  j["errors"] = s.errors();
  j["frame_ms"] = {{"median", s.timing.stats.median()}, {"p99", s.timing.stats.p99()}, {"max", s.timing.stats.max()},
                   {"frames", s.timing.stats.count()}};
  return j;
}

json run_command(AppState& s, const json& cmd) {
  if (!cmd.is_object()) return {{"error", "a command is a JSON object"}};
  if (cmd.contains("select")) {
    const uint64_t id = id_of(cmd["select"]);
    if (id == UINT64_MAX) return false;
    s.selection.select_event(id);
    return true;
  }
  if (cmd.contains("page")) {
    if (cmd["page"].is_string() && page_claiming(s, cmd["page"].get<std::string>())) return true;
    if (!cmd["page"].is_string() || !page_named(cmd["page"].get<std::string>())) return false;
    s.page_request = cmd["page"].get<std::string>();
    return true;
  }
  if (cmd.contains("link")) return link_command(s, cmd["link"]);
  if (cmd.contains("rank")) return rank_command(s, cmd);
  if (cmd.contains("step")) {
    if (!cmd["step"].is_number_integer()) return false;
    go_to_step(s, cmd["step"].get<int>());
    return true;
  }
  if (cmd.contains("key")) return cmd["key"].is_string() ? key_command(s, cmd["key"].get<std::string>()) : json(false);
  if (cmd.contains("event_row_rect")) return rect_json(s.drawn.events, id_of(cmd["event_row_rect"]));
  if (cmd.contains("event_row_loaded")) {
    auto it = s.drawn.events.find(id_of(cmd["event_row_loaded"]));
    return it != s.drawn.events.end() && it->second.loaded;
  }
  if (cmd.contains("run_row_rect")) {
    const uint64_t index = id_of(cmd["run_row_rect"]);
    return index == UINT64_MAX ? json(nullptr) : rect_json(s.drawn.runs, static_cast<size_t>(index));
  }
  json r = page_command(s, cmd);
  if (!r.is_null()) return r;
  return {{"error", "unknown command: " + cmd.dump()}};
}

}  // namespace tvis::viewer
