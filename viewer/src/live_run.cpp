#include "live_run.h"

#include "app_state.h"

namespace tvis::viewer {

void recheck_live_run(AppState& s, double now) {
  RunModel& m = s.model;
  m.take_growth();  // a recheck answered on the model's worker: adopted now, before anything reads the model
  if (m.recheck_in_flight()) {
    ++s.live.frames_while_rechecking;
    s.live.next_at = now + s.options.live_recheck_seconds;  // the interval runs from the answer
    return;
  }
  if (s.showing_run_list || !m.live()) return;
  // A run opened since the last recheck is rechecked one interval after it opened.
  if (s.live.run != s.selection.run) {
    s.live.run = s.selection.run;
    s.live.frames_while_rechecking = 0;
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
  run["rechecking"] = s.model.recheck_in_flight();
  run["recheck_frames"] = s.live.frames_while_rechecking;
}

}  // namespace tvis::viewer
