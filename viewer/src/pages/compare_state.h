// compare_state.h: what the Compare page remembers between frames (its
// PageState). The page's files: compare_page.cpp (layout, the first
// divergence, the position pickers, view and commands) and compare_images.cpp
// (run A's values, run B's and |A - B| as three heatmaps). The numbers come
// from the model layer (viewer_model/run_comparison.h).
#pragma once

#include <cstdint>
#include <string>

#include "../app_state.h"
#include "tvis/viewer_model/run_comparison.h"
#include "tvis/widgets/heatmap.h"
#include "weights_state.h"

namespace tvis::viewer {

/// The three images of one settled position, reduced for drawing.
struct CompareImages {
  std::string key;         // the position they show ("" = none yet)
  ComparedValues values;   // the comparison they were made from
  WeightImage a, b, diff;  // reduced to at most kShownSide a side
  widgets::ColorRange range;       // one symmetric range over A and B
  widgets::ColorRange diff_range;  // 0 .. max finite |A - B|
  uint64_t version = 0;
  widgets::HeatmapTexture tex_a, tex_b, tex_diff;
};

struct CompareState : PageState {
  uint64_t generation = UINT64_MAX;  // AppState::compare_generation the comparison is of
  RunComparison comparison;
  ComparePosition position;
  bool placed = false;  // a position was chosen (link, command, pickers, first divergence)
  CompareImages images;
};

CompareState& compare_state(AppState& s);
/// The position's key ("step/show/module-or-param").
std::string position_key(const ComparePosition& p);
/// Compares the current position (when it changed or still loads) and
/// returns the images; null while either run's values load.
const CompareImages* compare_images(AppState& s, CompareState& c);
/// Draws A, B and |A - B| side by side, with what the difference is in words.
void draw_compare_images(AppState& s, CompareState& c);
/// The difference in words ("max |A - B| = 0.0123 at element 17; 40 of 1024 differ").
std::string difference_words(const ComparedValues& v);

}  // namespace tvis::viewer
