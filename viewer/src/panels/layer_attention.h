// layer_attention.h: the layer panel's attention view. For a module call
// that the recorder found attention in (an AttentionRecord on that call, for
// the shown sample: captured from a softmax or rebuilt from a fused kernel's
// q and k; the caption says which), On image can paint where one token looks:
// row `query` of the head-mean weights laid on the image's patch grid,
// [CLS] (token 0 when the tokens are n^2 + 1) by default, any patch by a
// click. A token model (an LM's ids) gets a strip instead: row `query` over
// its T tokens, labelled, the last token by default (in a causal model the
// one that sees them all), any token by a click.
//
// LayerAttention is the panel's memory of it (the decoded weights, keyed by
// tensor id); resolve_layer_attention() fills it without blocking (a
// frame whose weights are still loading says "loading").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "panel_context.h"
#include "tvis/viewer_model/attention_rollout.h"

namespace tvis::viewer {

struct LayerAttention {
  bool found = false;      // the call has an attention record for the sample
  bool show = true;        // On image paints the attention (else the output's strength)
  int query = -1;          // the token whose row is painted; -1: [CLS] / token 0
  std::string module;      // the record's module
  std::string origin;      // how its weights were obtained (attention_origin)
  uint64_t tensor = UINT64_MAX;  // the weights' tensor id (decoded into `weights`)
  AttentionWeights weights;
  std::vector<double> mean;  // head mean, T x T
  std::string problem;       // why nothing can be painted ("" when it can)
  int side = 0;              // patch grid side n (0: not an image's patches)
  bool cls = false;          // token 0 is [CLS], not on the grid
  bool strip = false;        // a token model: one row of T tokens instead of a grid
  std::vector<std::string> labels;  // the tokens' labels (a strip), else empty
  std::vector<double> grid;  // where `query` looks: n x n, or 1 x T (a strip)

  int rows() const { return strip ? 1 : side; }
  int cols() const { return strip ? weights.cols : side; }

  /// The token painted: `query` when valid, else [CLS] / token 0 (the last
  /// token of a strip).
  int query_token() const;
  /// The token a click on map cell (r, c) asks about.
  int token_at(int r, int c) const { return strip ? c : r * side + c + (cls ? 1 : 0); }
  /// The map cell of token `t` ({-1, -1}: [CLS], on no patch).
  std::pair<int, int> cell_of(int t) const;
  /// True when On image would paint the attention (the panel shows it).
  bool painting() const { return found && show && problem.empty() && !grid.empty(); }
  bool drawn = false;  // On image painted it this frame (LAYER.attention.painted)
};

/// Finds the attention record of call `event` at `step` for `sample`
/// (followed id; -1: batch row 0) and decodes its weights (cached by tensor
/// id). Never blocks.
void resolve_layer_attention(PanelContext& c, LayerAttention& a, uint64_t event, int step, int sample);

/// The radio buttons choosing what On image paints, and the caption; only
/// when the call has attention.
void draw_layer_attention_choice(LayerAttention& a);

/// The LAYER.attention object: null when the call has no attention record;
/// else {painted (drawn this frame: On image open, the output's values at
/// hand), module, origin, query, query_label, cls, grid_side, strip, tokens, grid,
/// problem}.
nlohmann::json layer_attention_json(const LayerAttention& a);

}  // namespace tvis::viewer
