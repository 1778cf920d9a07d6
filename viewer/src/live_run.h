// live_run.h: the App's side of a live run (a run still being written:
// training in progress, or `tvis run` not yet finished).
//
// While the shown run is live (RunModel::live(): opened without its footer,
// no recheck failed), the frame asks the model to recheck its file about
// AppOptions::live_recheck_seconds after the last recheck answered
// (RunModel::recheck_growth: asynchronous, so no frame waits on it: over
// ssh each of its reads is a round trip to the agent; RunModel::take_growth
// adopts the answer on a later frame). A grown run is adopted in place:
// the page, the step, the selection and each page's state stay as they were;
// the navigator and the pages see the new steps from the next frame. A run
// that becomes complete (its footer written) is not rechecked again; one
// whose file shrank or was replaced keeps what it showed, stops, and its
// message is listed among the errors. Only the shown rank's file of a
// distributed run is rechecked.
#pragma once

#include <nlohmann/json.hpp>

namespace tvis::viewer {

struct AppState;

/// App::frame, before anything reads the model: starts a recheck when one is due.
void recheck_live_run(AppState& s, double now_seconds);
/// state().run's live keys: {live, complete, growths, file_bytes, rechecking,
/// recheck_frames} (docs/viewer_test_surface.md, Live runs).
void add_live_keys(AppState& s, nlohmann::json& run);

}  // namespace tvis::viewer
