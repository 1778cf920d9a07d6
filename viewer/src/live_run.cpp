#include "live_run.h"

#include "app_state.h"

namespace tvis::viewer {

void recheck_live_run(AppState& s, double now) {
  RunModel& m = s.model;
  if (s.showing_run_list || !m.live() || m.recheck_in_flight()) return;
  // A run opened since the last recheck is rechecked one interval after it opened.
  if (s.live.run != s.selection.run) {
    s.live.run = s.selection.run;
    s.live.next_at = now + s.options.live_recheck_seconds;
    return;
  }
  if (now < s.live.next_at) return;
  s.live.next_at = now + s.options.live_recheck_seconds;
  m.recheck_growth();
}

void add_live_keys(AppState& s, nlohmann::json& run) {
  run["live"] = s.model.live();
  run["complete"] = s.model.complete();
  run["growths"] = s.model.growths();
  run["file_bytes"] = s.model.file_size();
}

}  // namespace tvis::viewer
