// link.h: positions are links (docs/viewer_test_surface.md). A link is the
// browser's query (?page=Loss&step=2&param=fc.weight&show=grad) or
// tvis-view's flags (--page, --step, ...), handed to the App as one command,
// {"link": {"page": "Loss", "step": 2, ...}}, before or after the run opens.
// It is kept until the run is open and its metadata read, then applied once:
//   page  -> the page shown (an unknown name is ignored)
//   rank  -> first: a distributed run shows that rank (ranks.h); the rest of
//         the link is applied once its file is open
//   step  -> the Selection's step (clamped to the run), as the navigator sets it
//   select -> the selected call, where the run has that event id (a rank
//         switch carries it over)
//   other keys (param, show, phase, module, sample, head, ...) -> handed to the
//         pages as commands {key: value}; keys no page knows are ignored.
#pragma once

#include <nlohmann/json.hpp>

namespace tvis::viewer {

struct AppState;

/// {"link": {...}}: stores the link (replacing one not yet applied). True
/// for an object, false otherwise.
nlohmann::json link_command(AppState& s, const nlohmann::json& link);
/// Applies the stored link once the run is ready (called each frame).
void apply_pending_link(AppState& s);
/// Moves the Selection to `step` (clamped) as the navigator does: the first
/// call of that step is selected once its chunk is read.
void go_to_step(AppState& s, int step);

}  // namespace tvis::viewer
