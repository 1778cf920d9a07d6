// gradcam_shown.h: what Insights → Grad-CAM shows, as plain values computed
// from the model's Grad-CAM records and the page state (the step, the shown
// sample, the layer and class asked for).
//
// Contract: gradcam_shown() reads the model and InsightsState and draws
// nothing; like the drawing, it picks the shown sample (insight_sample(),
// which may settle st.sample on one of the step's samples) and asks for the
// map's values (loading until read). The Grad-CAM view (gradcam_view.cpp)
// draws from it, and gradcam_json() (gradcam_json.cpp) builds state().view
// from the same values when state() asks.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "insights_state.h"

namespace tvis::viewer {

struct GradCamShown {
  enum class State {
    NoMaps,     // no map for the sample at the step (or no maps at the step at all)
    NoTrueMap,  // true class asked for, only predicted-class maps recorded (true_hint says why)
    Problem,    // the layer's map is loading or not [h, w] (problem says which)
    Shown,      // the map: every field below
  };
  State state = State::NoMaps;
  int step = 0, sample = -1;
  std::vector<int> samples;                   // the step's samples with maps
  std::vector<const GradCamEntry*> maps;      // the sample's maps for the class asked for, shallow to deep
  int layer = 0;                              // index into maps of the one shown
  const GradCamEntry* entry = nullptr;        // maps[layer] (Problem, Shown)
  std::shared_ptr<const DecodedTensor> map;   // its values, rows x cols (Shown)
  int rows = 0, cols = 0;
  std::string problem;
  bool no_true = false;                       // the sample has no true-class map at the step
  std::string true_hint;                      // why (missing_true_reason), when no_true
};

/// The Grad-CAM sub-page's values for the selected step and the shown sample.
GradCamShown gradcam_shown(AppState& s, InsightsState& st);
/// A map entry's values as [h, w] (rows, cols), or nullptr and why not ("loading ..." while read).
std::shared_ptr<const DecodedTensor> gradcam_map_values(AppState& s, const GradCamEntry& e, int* rows, int* cols,
                                                        std::string* problem);
/// state().view for the Grad-CAM sub-page (null when it shows no map and no true-class hint).
nlohmann::json gradcam_json(AppState& s, InsightsState& st);

}  // namespace tvis::viewer
