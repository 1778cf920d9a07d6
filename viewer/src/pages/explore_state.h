// explore_state.h: what the Explore page remembers between frames (tree
// collapse and search, the inspected tensor, panel views), and the panels it
// is made of, one file each:
//
//   call_tree.cpp      every call in order, expandable, searchable (virtualized)
//   inspector.cpp      the selected call: site, timing, its tensors
//   tensor_view.cpp    one tensor: shape, dtype, stats, histogram, heatmap / table
//   samples_panel.cpp  followed samples, labels, transform chains
//   timeline.cpp       calls along time per phase (zoom, pan, click selects)
//   source_view.cpp    recorded source, selected line, per-line call counts
//   layers_table.cpp   one row per module call of a step, sortable
//   step_view.cpp      phases of each step with their durations
//
// Invariant: ExploreState belongs to one open run (AppState::run_generation);
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
#include "../tensor_index.h"
#include "tvis/widgets/heatmap.h"
#include "tvis/widgets/tensor_slice.h"

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

/// The tensor shown in the inspector and how.
struct TensorViewState {
  std::optional<uint64_t> tensor;  // tensor id
  std::optional<uint64_t> decoded_for;
  TensorValues values;
  std::string error;  // why the values cannot be shown
  widgets::SliceSpec spec;
  widgets::Slice2D slice;
  bool slice_dirty = true;
  std::string slice_error;
  widgets::Slice2D reduced;  // block-reduced slice drawn without a texture uploader
  uint64_t reduced_version = UINT64_MAX;
  int mode = 0;  // 0 heatmap, 1 table
  widgets::HeatmapTexture texture;
  uint64_t texture_version = 0;
};

struct TimelineState {
  int step = -1;  // the step shown (follows the navigator)
  double t0 = 0, t1 = 0;         // the step's extent (ns)
  double view0 = 0, view1 = 0;   // the visible window (ns)
  bool fitted = false;
  size_t calls = 0;       // timed calls drawn last frame
  bool complete = false;  // every Events chunk of the step was loaded last frame
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

struct ExploreState {
  uint64_t generation = 0;
  CallTreeState tree;
  TensorIndex tensors;
  TensorViewState view;
  TimelineState timeline;
  SourceViewState source;
  LayersState layers;
  std::optional<BottomTab> open_tab;  // a panel asked to be shown (e.g. Source after a click)
};

// --- the panels --------------------------------------------------------------
void draw_call_tree(AppState& s, ExploreState& x);
void draw_inspector(AppState& s, ExploreState& x);
void draw_tensor_view(AppState& s, ExploreState& x, const schema::TensorRecord& rec);
void draw_samples_panel(AppState& s, ExploreState& x);
void draw_timeline(AppState& s, ExploreState& x);
void draw_source_view(AppState& s, ExploreState& x);
void draw_layers_table(AppState& s, ExploreState& x);
void draw_step_view(AppState& s, ExploreState& x);

// --- shared helpers (explore_page.cpp) ----------------------------------------
/// Colour of a phase (bars, chips); a grey for Phase::None.
ImU32 phase_color(schema::Phase phase);
/// "train.py:27" for (file, line); "" when line is 0.
std::string call_site(AppState& s, uint32_t file, uint32_t line);
/// Selects event `id` from a panel (the tree scrolls to it).
void select_event(AppState& s, uint64_t id);
/// Shows `file:line` in the Source panel.
void show_source(ExploreState& x, uint32_t file, uint32_t line);
/// "1.25 ms", "830 us", "2.1 s".
std::string duration_label(int64_t ns);

/// Calls f(event) for every loaded event of `step`, across the Events chunks
/// whose step range covers it. Returns false while some of them still load
/// (callers draw what they have and try again next frame).
template <typename F>
bool for_step_events(AppState& s, int step, F&& f) {
  bool complete = true;
  for (const EventSpan& span : s.model.event_spans()) {
    if (span.step_first >= 0 && (step < span.step_first || step > span.step_last)) continue;
    if (s.model.cache().failure(span.ordinal)) continue;
    auto chunk = s.model.cache().get(span.ordinal);
    if (!chunk) {
      complete = false;
      continue;
    }
    const auto* batch = chunk->root() ? chunk->root()->body_as_EventBatch() : nullptr;
    if (!batch || !batch->events()) continue;
    for (const auto* e : *batch->events())
      if (e->step() == step) f(e);
  }
  return complete;
}

}  // namespace tvis::viewer
