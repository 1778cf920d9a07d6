// explore_state.h: what the Explore page remembers between frames (tree
// collapse and search, the inspector's tensor view, panel views), and the
// panels only it shows, one file each (the inspector and the tensor view are
// shared panels: panels/):
//
//   call_tree.cpp      every call in order, expandable, searchable (virtualized)
//   samples_panel.cpp  followed samples, labels, transform chains
//   timeline.cpp       calls along time per phase (zoom, pan, click selects)
//   source_view.cpp    recorded source, selected line, per-line call counts
//   layers_table.cpp   one row per module call of a step, sortable
//   step_view.cpp      phases of each step with their durations
//
// Invariant: ExploreState belongs to one open run (Selection::run);
// draw_explore_page() replaces it when another run is opened.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "../app_state.h"
#include "../panels/inspector.h"
#include "../panels/panel_labels.h"
#include "tvis/viewer_model/step_events.h"

namespace tvis::viewer {

/// Rows of the call tree: event ids in call order minus collapsed subtrees.
/// Collapsing event X hides (X, end(X)], its descendants, which are
/// contiguous because ids are given in call (pre-)order.
struct CallTreeState {
  // Collapsed event -> last descendant id (inclusive); nullopt while the
  // subtree's end is still being found (its events are loading).
  std::map<uint64_t, std::optional<uint64_t>> collapsed;
  std::unordered_map<uint64_t, uint64_t> scan_cursor;  // pending collapse -> next id to test
  // Hidden id ranges [first, last], sorted and disjoint (rebuilt from `collapsed`).
  std::vector<std::pair<uint64_t, uint64_t>> hidden;
  uint64_t hidden_total = 0;
  bool hidden_dirty = false;

  // Search: case-insensitive substring of name or class.
  char query[128] = {};
  std::string active_query;
  std::vector<uint64_t> matches;  // ascending ids
  size_t scan_span = 0;           // next event span to scan
  bool scan_done = true;

  bool follow_selection = true;  // scroll the selected row into view when it changes
  std::optional<uint64_t> last_selected;
};

struct TimelineState {
  int step = -1;  // the step shown (follows the navigator)
  double t0 = 0, t1 = 0;         // the step's extent (ns)
  double view0 = 0, view1 = 0;   // the visible window (ns)
  bool fitted = false;
  size_t calls = 0;       // timed calls drawn last frame
  bool complete = false;  // every Events chunk of the step was loaded last frame
  // The clock (user_time.h): false: the user's time (tvis's own work taken
  // out; the default); true: wall time, with a "tvis" lane showing where
  // tvis's own work went. Kept across steps. A run without own time draws
  // wall time either way.
  bool wall_clock = false;
  bool own_known = false;  // the step's calls carry own time (last frame)
  int64_t own_ns = 0;      // tvis's own time over the step's calls (last frame)
  size_t own_bars = 0;     // bars drawn in the tvis lane last frame
  // The step's events (step_events.h), copied once: refilled each frame only
  // while the step is incomplete (chunks loading, or a run still written).
  std::vector<TimelineEvent> events;
  bool events_complete = false;
};

struct SourceViewState {
  uint32_t file = 0;
  bool has_file = false;
  int highlight_line = 0;
  bool scroll_pending = false;
  std::optional<uint64_t> followed;  // the selection the view last followed
  // Per (file, line): calls counted over the run's events chunks.
  std::unordered_map<uint64_t, uint32_t> line_calls;
  size_t counted_spans = 0;
  bool counting_done = false;
};

struct LayerRow {
  uint64_t event = 0;
  std::string path, cls, out_shape;
  int64_t params = -1;  // -1: unknown
  double mean = NAN, stddev = NAN, grad = NAN;
};

struct LayersState {
  int step = -1;
  std::vector<LayerRow> rows;
  bool complete = false;
  // Building the rows, a slice per frame (layers_table.cpp):
  std::unordered_map<std::string, int64_t> params;  // module path -> parameter count
  bool params_known = false;
  size_t next_span = 0;       // RunModel::event_spans() index
  uint32_t next_event = 0;    // index in that span's chunk
  bool unresolved = false;    // a row's records were not all reachable
  bool rebuilt = false;       // this step was built a second time for that
  int sort_column = -1;
  bool sort_descending = false;
};

enum class BottomTab { Timeline, Source, Layers, Steps, Samples };
/// The panel whose tab reads `name` ("Timeline"), or nullopt.
std::optional<BottomTab> explore_panel_named(const std::string& name);

struct ExploreState : PageState {
  CallTreeState tree;
  InspectorState inspector;
  TimelineState timeline;
  SourceViewState source;
  LayersState layers;
  std::optional<BottomTab> open_tab;  // a panel asked to be shown (e.g. Source after a click)
};

// --- the panels --------------------------------------------------------------
void draw_call_tree(AppState& s, ExploreState& x);
void draw_samples_panel(AppState& s, ExploreState& x);
void draw_timeline(AppState& s, ExploreState& x);
void draw_source_view(AppState& s, ExploreState& x);
void draw_layers_table(AppState& s, ExploreState& x);
void draw_step_view(AppState& s, ExploreState& x);

// --- Explore's helpers (explore_page.cpp) -------------------------------------
/// The shared panels' context on Explore: call sites open the Source panel.
PanelContext explore_panel_context(AppState& s, ExploreState& x);
/// Shows `file:line` in the Source panel.
void show_source(ExploreState& x, uint32_t file, uint32_t line);

}  // namespace tvis::viewer
