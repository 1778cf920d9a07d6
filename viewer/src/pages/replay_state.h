// replay_state.h: what the Replay page remembers between frames, and the
// parts it is drawn from, one file each:
//
//   replay_page.cpp      layout, view() for state(), command(), keys, links
//   replay_position.cpp  the position (step, stop) and moving it: step sizes,
//                        phase jumps, playing, prefetching what comes next
//   replay_controls.cpp  play/pause, step buttons, step size, speed and the
//                        timeline strip of steps x phases
//   replay_diagram.cpp   the model as a layered diagram, coloured by phase
//   replay_phases.cpp    each phase's view: forward/backward (the shared
//                        layer panel), loss, optimizer; the data phase's:
//   replay_data.h/.cpp   what the data phase shows (the batch, the followed
//                        sample), as values from the model
//   replay_data_view.cpp the data phase drawn from them
//   replay_data_json.cpp view.data built from them when state() asks
//
// Invariant: ReplayState belongs to one open run (Selection::run);
// replay_state() replaces it when another run opens. The position is
// (step, stop index into that step's StepPlan); while the plan loads the
// stop is pending and `want` says where to land once it arrives. The plans
// (StepStops) and the diagram's numbers (LayerMagnitudes) are the model's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../app_state.h"
#include "../panels/layer_view.h"
#include "../panels/panel_context.h"
#include "../panels/picture_textures.h"
#include "tvis/viewer_model/layer_magnitudes.h"
#include "tvis/viewer_model/step_stops.h"

namespace tvis::viewer {

enum class StepSize { Layer, Call, Phase, Batch };
const char* step_size_label(StepSize size);

/// Where a pending position lands once its step's plan is known.
struct Landing {
  enum Kind { First, Last, FirstLayer, LastLayer, Match } kind = First;
  Phase phase = Phase::None;  // Match: this phase (None: any) ...
  std::string module;                         // ... and this name ("" : the phase's first stop)
  std::optional<uint64_t> event;              // ... or exactly this event
};

struct ReplayState : PageState {
  PictureTextures pictures;  // the data view's pictures as drawn (tensor_picture.h)

  int step = 0;
  int stop = -1;                     // index into the step's plan; -1 pending
  std::optional<Landing> landing;    // where a pending position lands
  StepSize step_size = StepSize::Layer;
  bool playing = false;
  float speed = 6.0f;                // stops per second while playing
  double play_clock = 0;             // seconds accumulated toward the next move
  bool at_end = false;               // playing reached the last stop of the run
  int want_sample = -1;              // a link's sample id, taken once the followed ids are read

  bool scroll_diagram = true;        // scroll the current box into view
  std::set<std::string> expanded;    // containers opened by a click
  std::set<std::string> collapsed;   // containers closed by a click
  bool fold_repeats = true;
  uint64_t synced_event = UINT64_MAX;  // the Selection event Replay last wrote
  int synced_step = -1;

  LayerViewState layer;
  bool layer_shown = false;          // this frame drew the layer panel
  std::string drawn_phase;           // the phase the last drawn frame showed ("" : none / not drawn)
  std::vector<std::string> notes;    // what the last drawn frame said in place about a missing part
  std::map<std::string, FrameStats> frame_ms_by_phase;  // measured frames, by the phase they showed

};

/// The page's state, replaced when another run opens.
ReplayState& replay_state(AppState& s);
/// The stop shown (nullptr while pending).
const Stop* current_stop(AppState& s, ReplayState& r);

// --- replay_position.cpp ---------------------------------------------------
/// Lands a pending position once its plan is there; plays; prefetches.
void update_position(AppState& s, ReplayState& r);
/// One move by the step size, forward (+1) or back (-1).
void move(AppState& s, ReplayState& r, int direction);
/// Jumps to the first stop of `phase` in the current step (or the next /
/// previous phase when `phase` is None and direction is +1 / -1).
void jump_phase(AppState& s, ReplayState& r, Phase phase, int direction = 0);
/// Goes to `step` and lands as `landing` says.
void go_to(AppState& s, ReplayState& r, int step, Landing landing);
/// Followed sample id (-1 when none) and its batch row at the current step.
int replay_sample(AppState& s);

// --- the parts ------------------------------------------------------------
void draw_replay_controls(AppState& s, ReplayState& r);
/// Why `phase` is missing from a step, in the user's words.
const char* missing_phase_reason(AppState& s, Phase phase);
void draw_replay_diagram(AppState& s, ReplayState& r);
/// What the diagram's boxes are coloured by at the position: the legend and
/// one value per diagram node (-1: none), from the model's magnitudes.
struct DiagramColours {
  bool log = false;            // a log scale (backward, optimizer)
  std::string legend;          // "" while the step's plan loads
  std::vector<double> value;   // per node of the step's Diagram
};
DiagramColours diagram_colours(AppState& s, ReplayState& r);
void draw_replay_phase_view(AppState& s, ReplayState& r);
/// Says `text` in place (muted, or in `color`) and keeps it for state()
/// (view.notes).
void replay_say(ReplayState& r, const std::string& text);
void replay_say(ReplayState& r, const std::string& text, unsigned color);
/// The data phase's view at stop `here` (replay_data_view.cpp).
void draw_replay_data_view(AppState& s, ReplayState& r, const Stop& here);
/// view.data: the data phase at the shown stop (replay_data.h's values),
/// with each tensor's decoded values summarised (shape, min, max, mean; the
/// batch's first row's leading values unless it is drawn as images); null
/// when the shown stop is not in the data phase (replay_data_json.cpp).
nlohmann::json replay_data_json(AppState& s, ReplayState& r);
PanelContext replay_panel_context(AppState& s);

}  // namespace tvis::viewer
