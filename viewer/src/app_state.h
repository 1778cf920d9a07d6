// app_state.h: the viewer's state shared by the frame's parts (top bar,
// navigator, pages). Internal to viewer/; the shells see only app.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "frame_stats.h"
#include "run_model.h"
#include "tvis/viewer/app.h"

namespace tvis::viewer {

struct ExploreState;  // pages/explore_state.h

/// One row of the run list: the entry and a small model reading its metadata.
struct RunListRow {
  RunListEntry entry;
  std::unique_ptr<RunModel> model;  // opened for its RunMeta only
  std::string open_error;           // the source could not be created
};

struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool loaded = false;  // drawn with its data, not as a placeholder
};

struct AppState {
  AppOptions options;
  RunModel model;

  // Run list (a runs folder); empty when a single run was opened.
  std::vector<RunListRow> runs;
  bool showing_run_list = false;

  // Pages: only built pages are listed (INTERFACES.md spelling).
  std::vector<std::string> pages{"Explore"};
  std::string page = "Explore";

  // Navigation and selection.
  std::optional<uint64_t> selected_event;
  int nav_step = 0;
  schema::Phase nav_phase = schema::Phase::None;
  bool jump_pending = false;           // navigator asked for (nav_step, nav_phase)
  std::optional<uint64_t> scroll_to;   // Explore list scrolls this row into view
  std::string show_panel;              // Explore's bottom panel to bring up ("" = none asked)
  std::vector<int> sample_ids;         // followed samples (from Samples chunks)
  int sample_cursor = 0;
  bool samples_indexed = false;
  std::unordered_map<uint64_t, int> depth_cache;  // event id -> call depth

  // Files: SourceFiles chunks resolved lazily (file id -> display path).
  std::unordered_map<uint32_t, std::string> file_names;
  bool files_indexed = false;

  std::string welcome_hint = "Open a run file to begin.";
  std::string error_override;  // set by show_error when no source exists
  FrameStats frame_stats;
  double frame_ms_shown = 0;      // the status bar's figure (refreshed once a second)
  double frame_ms_shown_at = -1e9;
  float ui_scale = 1.0f;
  float framebuffer_scale = 1.0f;
  bool fonts_built = false;

  // Explore's panels (pages/explore_state.h); replaced when run_generation changes.
  uint64_t run_generation = 0;  // bumped by reset_navigation()
  std::shared_ptr<ExploreState> explore;
  std::optional<uint64_t> selected_tensor;  // tensor shown in the inspector

  // Test surface: row rectangles of the last frame (call tree, run list).
  std::unordered_map<uint64_t, Rect> row_rects;
  std::unordered_map<size_t, Rect> run_row_rects;

  explicit AppState(AppOptions o) : options(o), model(o.cache_budget_bytes) {}

  /// Messages the frame shows as errors (the same list state() reports).
  std::vector<std::string> errors() const;
  /// Resets navigation for a newly opened run.
  void reset_navigation();
};

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
void draw_explore_page(AppState& s);
void draw_status_bar(AppState& s);
/// Keyboard: left/right step through events, [ and ] switch followed sample.
void handle_keys(AppState& s);
/// The call depth of event `id` (0 at the top), from loaded parents.
int event_depth(AppState& s, uint64_t id);
/// Display path of source file `id` ("" while SourceFiles load / unknown).
const std::string& file_name(AppState& s, uint32_t id);

}  // namespace tvis::viewer
