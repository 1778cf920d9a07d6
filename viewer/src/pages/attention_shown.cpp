// attention_shown.cpp: attention_shown() and attention_rollout_update()
// (attention_shown.h): the step's layers for the sample, the layer and head
// shown, its tokens, mask and causality, the rollout, and an image model's
// patch grid.
#include "attention_shown.h"

#include <algorithm>

namespace tvis::viewer {

namespace {

// The step's records for `sample`, in forward order.
std::vector<const AttentionEntry*> layers_of(AppState& s, int step, int sample) {
  std::vector<const AttentionEntry*> out;
  for (const AttentionEntry& e : s.model.insights().attention())
    if (e.step == step && e.sample == sample) out.push_back(&e);
  return out;
}

// The tokens on the axes: labels, else ids, else patch positions / indices.
std::vector<std::string> token_names(const AttentionEntry& e, int t) {
  std::vector<std::string> out;
  for (int i = 0; i < t; ++i) {
    if (i < static_cast<int>(e.labels.size()) && !e.labels[i].empty()) {
      out.push_back(e.labels[i] == " " ? "_" : e.labels[i]);
    } else if (i < static_cast<int>(e.tokens.size())) {
      out.push_back(std::to_string(e.tokens[i]));
    } else {
      bool cls = false;
      const int n = e.tokens.empty() ? patch_grid_side(t, &cls) : 0;
      if (n && cls && i == 0) out.push_back("[CLS]");
      else if (n) out.push_back("(" + std::to_string((i - cls) / n) + "," + std::to_string((i - cls) % n) + ")");
      else out.push_back(std::to_string(i));
    }
  }
  return out;
}

// The recorded mask of `e` as rows x cols values (empty: none recorded, or
// still loading, or not of the weights' shape).
std::vector<double> mask_of(AppState& s, const AttentionEntry& e, int rows, int cols) {
  if (e.mask < 0) return {};
  const std::shared_ptr<const DecodedTensor> d = decoded_tensor(s, static_cast<uint64_t>(e.mask), e.step);
  if (d->loading || !d->error.empty() || d->values.partial ||
      d->values.values.size() != static_cast<size_t>(rows) * cols)
    return {};
  return d->values.values;
}

// A layer's weights, or why not.
AttentionWeights load_layer(AppState& s, const AttentionEntry& e, std::string* problem) {
  const std::shared_ptr<const DecodedTensor> d = decoded_tensor(s, e.weights, e.step);
  if (d->loading) *problem = "loading ...";
  else if (!d->error.empty()) *problem = d->error;
  else if (d->values.partial) *problem = "only the leading rows of these weights were kept (tvis run --max-elems)";
  else return attention_weights(d->values.values, d->values.shape, problem);
  return {};
}

int layer_named(const std::vector<const AttentionEntry*>& layers, const std::string& module) {
  for (size_t i = 0; i < layers.size(); ++i)
    if (layers[i]->module == module) return static_cast<int>(i);
  return 0;
}

std::vector<double> head_map(const AttentionWeights& w, int head) {
  if (head < 0) return head_mean(w);
  const size_t plane = static_cast<size_t>(w.rows) * w.cols;
  return std::vector<double>(w.w.begin() + static_cast<size_t>(head) * plane, w.w.begin() + static_cast<size_t>(head + 1) * plane);
}

// An image model's patch grid, its query settled on a token and what its picture paints.
void image_grid(AttentionState& a, AttentionShown* out) {
  const int t = out->weights.rows == out->weights.cols ? out->weights.rows : 0;
  out->grid = out->entry->tokens.empty() ? patch_grid_side(t, &out->cls) : 0;
  out->image = out->grid > 0;
  if (!out->image) return;
  if (a.query < 0 || a.query >= t) a.query = 0;
  out->painted = a.paint_rollout && static_cast<int>(a.rollout.size()) == t * t ? "rollout" : "layer";
}

}  // namespace

void attention_rollout_update(AppState& s, InsightsState& st, const std::vector<const AttentionEntry*>& layers) {
  AttentionState& a = st.attention;
  const int n = static_cast<int>(layers.size());
  a.first = std::clamp(a.first, 0, n - 1);
  int last = a.last < 0 ? n - 1 : std::clamp(a.last, 0, n - 1);
  if (last < a.first) last = a.first;
  std::string key = std::to_string(a.first) + ":" + std::to_string(last);
  for (int i = a.first; i <= last; ++i) key += "/" + std::to_string(layers[i]->weights);
  if (key == a.rollout_key) return;
  std::vector<AttentionWeights> shown;
  for (int i = a.first; i <= last; ++i) {
    std::string problem;
    shown.push_back(load_layer(s, *layers[i], &problem));
    if (!problem.empty()) {
      a.rollout.clear();
      a.rollout_problem = problem;
      if (a.rollout_problem != "loading ...") a.rollout_key = key;
      return;
    }
  }
  std::vector<const AttentionWeights*> ws;
  for (const AttentionWeights& x : shown) ws.push_back(&x);
  a.rollout_problem.clear();
  a.rollout = attention_rollout(ws, &a.rollout_problem);
  a.rollout_key = key;
  ++a.version;
}

AttentionShown attention_shown(AppState& s, InsightsState& st) {
  AttentionState& a = st.attention;
  AttentionShown out;
  out.step = s.selection.step;
  out.samples = samples_at_step(s.model.insights().attention(), out.step);
  out.sample = insight_sample(s, st, out.samples);
  out.layers = layers_of(s, out.step, out.sample);
  if (out.layers.empty()) return out;
  out.layer = layer_named(out.layers, a.module);
  out.entry = out.layers[out.layer];
  out.weights = load_layer(s, *out.entry, &out.problem);
  out.state = out.problem.empty() ? AttentionShown::State::Shown : AttentionShown::State::Problem;
  if (!out.problem.empty()) return out;
  const AttentionWeights& w = out.weights;
  if (a.head >= w.heads) a.head = -1;
  out.map = head_map(w, a.head);
  out.names = token_names(*out.entry, std::max(w.rows, w.cols));
  out.mask = mask_of(s, *out.entry, w.rows, w.cols);
  for (double v : out.mask) out.masked += v != 0;
  out.causal = w.rows == w.cols && (out.mask.empty() ? out.entry->mask < 0 && is_causal(out.map, w.rows)
                                                     : is_causal_mask(out.mask, w.rows));
  attention_rollout_update(s, st, out.layers);
  image_grid(a, &out);
  return out;
}

}  // namespace tvis::viewer
