// test_surface.h: the application's one test surface, as JSON. Shells and
// tests reach it through App::state_json() and App::command(); the shape is
// documented in docs/viewer_test_surface.md.
//
//   state:   { run, runs, page, pages, insights, selection, view, errors, frame_ms }
//            `view` is what the shown page reports (PageSpec::view).
//   command: one JSON object per call, answered with one JSON value:
//            {"select": ID}            select event ID as a click on its row  -> true
//            {"page": NAME}            show page NAME                         -> true | false
//            {"panel": NAME}           handed to the pages (Explore: its bottom panels) -> true | false
//            {"panels": true}          the panel names the pages know         -> [NAME, ...]
//            {"link": {"page": .., "step": .., "param": ..}}  a position (link.h), applied once the run is open -> true
//            {"step": K}               go to step K as the navigator does     -> true | false
//            {"key": "left"|"right"|"["|"]"}  what the key does               -> true | false
//            {"event_row_rect": ID}    [x0, y0, x1, y1] of ID's row last frame -> array | null
//            {"event_row_loaded": ID}  the row was drawn with its data        -> bool
//            {"run_row_rect": INDEX}   the run list's row INDEX last frame    -> array | null
//            anything else             -> {"error": "..."}
#pragma once

#include <nlohmann/json.hpp>

namespace tvis::viewer {

struct AppState;

nlohmann::json state_object(AppState& s);
nlohmann::json run_command(AppState& s, const nlohmann::json& cmd);

}  // namespace tvis::viewer
