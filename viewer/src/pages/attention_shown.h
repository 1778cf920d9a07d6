// attention_shown.h: what Insights → Attention shows, as plain values
// computed from the model's attention records and the page state (the step,
// the shown sample, the layer, head, rollout range and query asked for).
//
// Contract: attention_shown() reads the model and InsightsState and draws
// nothing. Like the drawing it settles the state on what can be shown
// (insight_sample() picks one of the step's samples, a head past the
// layer's heads becomes the mean, an image model's query outside the
// tokens becomes 0) and keeps the rollout computed for the asked range in
// AttentionState (a cache keyed by the range's weights: attention_rollout_update()).
// Tensor values not read yet are asked for and say "loading ...". The
// Attention view (attention_view.cpp) draws from these values, and
// attention_json() (attention_json.cpp) builds state().view from the same
// values when state() asks.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "insights_state.h"

namespace tvis::viewer {

struct AttentionShown {
  enum class State {
    NoLayers,  // no attention weights for the sample at the step
    Problem,   // the layer's weights are loading or unusable (problem says which)
    Shown,     // the layer: every field below
  };
  State state = State::NoLayers;
  int step = 0, sample = -1;
  std::vector<int> samples;                    // the step's samples with attention
  std::vector<const AttentionEntry*> layers;   // the sample's layers at the step, forward order
  int layer = 0;                               // index into layers of the one shown
  const AttentionEntry* entry = nullptr;       // layers[layer] (Problem, Shown)
  std::string problem;
  AttentionWeights weights;                    // its weights, [heads, rows, cols]
  std::vector<double> map;                     // the head shown, or the mean over heads (rows x cols)
  std::vector<std::string> names;              // the tokens on the axes
  std::vector<double> mask;                    // the recorded mask (rows x cols; empty: none or not read)
  size_t masked = 0;                           // its nonzero entries
  bool causal = false;                         // a causal map (or mask)
  bool image = false;                          // an image model: a patch grid over the picture
  bool cls = false;                            // the grid's tokens start with [CLS] (image)
  int grid = 0;                                // the patch grid's side (image)
  std::string painted;                         // what the picture shows: "rollout" or "layer" (image)
};

/// The Attention sub-page's values for the selected step and the shown sample.
AttentionShown attention_shown(AppState& s, InsightsState& st);
/// The rollout over the asked range of `layers` into st.attention (rollout,
/// rollout_problem, version), recomputed only when the range or its weights changed.
void attention_rollout_update(AppState& s, InsightsState& st, const std::vector<const AttentionEntry*>& layers);
/// state().view for the Attention sub-page (null when it shows no layer).
nlohmann::json attention_json(AppState& s, InsightsState& st);

}  // namespace tvis::viewer
