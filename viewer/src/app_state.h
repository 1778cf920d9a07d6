// app_state.h: the viewer's state shared by the frame's parts (top bar,
// navigator, pages). Internal to viewer/; the shells see only app.h.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tvis/links/page_names.h"
#include "frame_stats.h"
#include "page.h"
#include "selection.h"
#include "tvis/viewer_model/run_model.h"
#include "tvis/viewer/app.h"

namespace tvis::viewer {

/// A rank switch asked for (ranks.h), performed at the next frame's start.
struct RankRequest {
  int rank = 0;
  nlohmann::json extra;  // more of a link, applied with the carried position
};

/// One row of the run list: the entry and a small model reading its metadata.
struct RunListRow {
  RunListEntry entry;
  std::unique_ptr<RunModel> model;  // opened for its RunMeta only
  std::string open_error;           // the source could not be created
};

struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool loaded = false;  // drawn with its data, not as a placeholder
  void copy_to(float out[4]) const {
    out[0] = x0;
    out[1] = y0;
    out[2] = x1;
    out[3] = y1;
  }
};

/// When the shown live run is rechecked next (live_run.h).
struct LiveClock {
  uint64_t run = UINT64_MAX;  // the Selection generation the clock was set for
  double next_at = 0;         // ImGui time (seconds) of the next recheck
  uint64_t frames_while_rechecking = 0;  // frames drawn while a recheck of this run was outstanding
};

/// The shell-facing look: UI scale and whether the font atlas was built.
struct Fonts {
  float ui_scale = 1.0f;
  float framebuffer_scale = 1.0f;
  bool built = false;
};

/// Frame timing: the measured frames and the status bar's figure.
struct FrameTiming {
  FrameStats stats;
  double shown_ms = 0;        // the status bar's figure (refreshed once a second)
  double shown_at = -1e9;
};

/// What the last frame drew where, for tests that click real rows.
struct DrawnRows {
  std::unordered_map<uint64_t, Rect> events;  // call tree rows by event id
  std::unordered_map<size_t, Rect> runs;      // run list rows by index
  void clear() {
    events.clear();
    runs.clear();
  }
};

/// The application's state, in parts: the model (data), the run list, the
/// shared Selection, the pages' own states, and shell-facing fonts, timing
/// and test geometry. A page reads the model and the selection and writes
/// only the selection and its own state.
struct AppState {
  AppOptions options;
  RunModel model;      // the run shown: of a distributed run, the shown rank's file
  RankSet ranks;       // a distributed run's rank files and their peer models (empty: one file)
  int rank = 0;        // the rank `model` shows (ranks.h)
  std::optional<RankRequest> rank_request;  // a switch asked for, done at the next frame's start
  // A second run compared with the shown one (the Compare page; App::open_compare).
  RunModel compare;
  uint64_t compare_generation = 0;  // bumped whenever `compare` opens or fails

  // Run list (a runs folder); empty when a single run was opened.
  std::vector<RunListRow> runs;
  bool showing_run_list = false;

  Selection selection;
  std::string page = links::page::kReplay;   // the page whose tab is shown (Replay: the default)
  std::string page_request;      // a page asked for by command ("" = none)
  std::string show_panel;        // a panel asked for by command ("" = none)
  nlohmann::json pending_link;   // a link not yet applied (link.h); null = none

  PageStates page_states;  // each registered page's own state, replaced when selection.run changes

  std::string welcome_hint = "Open a run file to begin.";
  std::string error_override;  // set by show_error when no source exists
  FrameTiming timing;
  LiveClock live;
  Fonts fonts;
  DrawnRows drawn;

  explicit AppState(AppOptions o)
      : options(o), model(o.cache_budget_bytes), ranks(o.cache_budget_bytes / 4), compare(o.cache_budget_bytes / 2) {
    model.set_decode_in_background(o.decode_in_background);
    ranks.set_decode_in_background(o.decode_in_background);
    compare.set_decode_in_background(o.decode_in_background);
  }

  /// Messages the frame shows as errors (the same list state() reports).
  std::vector<std::string> errors() const;
  /// Resets navigation for a newly opened run.
  void reset_navigation();
  /// Compares the shown run with the run of `source` (the Compare page).
  void open_compare(std::shared_ptr<format::ByteSource> source);
  /// The compared run could not be opened: the Compare page says `message`.
  void fail_compare(std::string message);
  /// Stops comparing.
  void clear_compare();
  /// The followed sample's id, or -1 when the run follows none.
  int followed_sample();
};

template <typename State>
State& page_state(AppState& s, const PageSpec& page) {
  return static_cast<State&>(s.page_states.get(s, page, s.selection.run));
}

template <typename State>
State* existing_page_state(AppState& s, const PageSpec& page) {
  return static_cast<State*>(s.page_states.find(page, s.selection.run));
}

/// The App's state is its Impl (App::internals() hands it to tests).
struct App::Impl : AppState {
  using AppState::AppState;
};

// The frame's parts, one file each.
void draw_top_bar(AppState& s);
void draw_navigator(AppState& s);
void draw_error_panel(AppState& s, const std::vector<std::string>& errors);
void draw_welcome(AppState& s);
void draw_run_list(AppState& s);
/// The run list's row `index` becomes the compared run, as its "Compare with
/// shown" button does; false when no run is shown or there is no such row.
bool compare_with_run_row(AppState& s, size_t index);
void compare_with_row(AppState& s, RunListRow& row);
void draw_status_bar(AppState& s);
/// Keyboard: left/right step through events, [ and ] switch followed sample.
void handle_keys(AppState& s);
/// Moves the selection `delta` events on (right arrow: +1), clamped to the run.
void step_event(AppState& s, int delta);
/// Follows the next (+1) or previous (-1) followed sample, wrapping around.
void step_sample(AppState& s, int delta);

}  // namespace tvis::viewer
