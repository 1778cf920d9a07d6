// attention_json.cpp: attention_json() (attention_shown.h): state().view of
// the Attention sub-page, from attention_shown()'s values: the layer, head,
// tokens, weights (grid_json), causality, how the weights were obtained,
// mask, kept part, the step's layers, the rollout and its layers, and for
// image models the query and what the picture paints; null when no layer
// is shown.
#include <algorithm>

#include "../panels/grid_json.h"
#include "attention_shown.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

json modules(const std::vector<const AttentionEntry*>& layers, int first, int last) {
  json out = json::array();
  for (int i = first; i <= last; ++i) out.push_back(layers[i]->module);
  return out;
}

}  // namespace

json attention_json(AppState& s, InsightsState& st) {
  const AttentionShown v = attention_shown(s, st);
  if (v.state != AttentionShown::State::Shown) return nullptr;
  const AttentionState& a = st.attention;
  const AttentionEntry& e = *v.entry;
  const AttentionWeights& w = v.weights;
  const int n = static_cast<int>(v.layers.size());
  return {{"module", e.module},
          {"head", a.head < 0 ? json(nullptr) : json(a.head)},
          {"heads", w.heads},
          {"step", v.step},
          {"sample", v.sample},
          {"tokens", v.names},
          {"weights", grid_json(v.map, w.rows, w.cols)},
          {"causal", v.causal},
          {"source", e.rebuilt ? "rebuilt" : "captured"},
          {"origin", attention_origin(e)},
          {"kind", e.kind},
          {"masked", e.mask < 0 ? json(nullptr) : json(v.masked)},
          {"full", e.full.size() == 2 ? json(e.full) : json(nullptr)},
          {"dropout", e.dropout},
          {"layers", modules(v.layers, 0, n - 1)},
          {"rollout", a.rollout.empty() ? json(nullptr) : grid_json(a.rollout, w.rows, w.rows)},
          {"rollout_layers", modules(v.layers, std::clamp(a.first, 0, n - 1), a.last < 0 ? n - 1 : std::clamp(a.last, 0, n - 1))},
          {"query", v.image ? json(a.query) : json(nullptr)},
          {"painted", v.image ? json(v.painted) : json(nullptr)}};
}

}  // namespace tvis::viewer
