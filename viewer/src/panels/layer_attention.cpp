// The layer panel's attention view (layer_attention.h).
#include "layer_attention.h"

#include <imgui.h>

#include <algorithm>

namespace tvis::viewer {

int LayerAttention::query_token() const {
  if (query >= 0 && query < weights.rows) return query;
  return strip ? std::max(0, weights.rows - 1) : 0;
}

std::pair<int, int> LayerAttention::cell_of(int t) const {
  if (strip) return {0, t};
  const int k = t - (cls ? 1 : 0);
  if (k < 0 || side <= 0) return {-1, -1};
  return {k / side, k % side};
}

namespace {

const AttentionEntry* entry_of(RunModel& model, uint64_t event, int step, int sample) {
  const int want = sample >= 0 ? sample : 0;  // without followed samples the records name batch rows
  for (const AttentionEntry& e : model.insights().attention())
    if (e.event == event && e.step == step && e.sample == want) return &e;
  return nullptr;
}

std::string query_label(const LayerAttention& a, int token) {
  if (a.cls && token == 0) return "[CLS]";
  if (a.strip && token < static_cast<int>(a.labels.size()) && !a.labels[token].empty())
    return "token " + std::to_string(token) + " '" + a.labels[token] + "'";
  if (a.side <= 0) return "token " + std::to_string(token);
  const int k = token - (a.cls ? 1 : 0);
  return "patch (" + std::to_string(k / a.side) + "," + std::to_string(k % a.side) + ")";
}

}  // namespace

void resolve_layer_attention(PanelContext& c, LayerAttention& a, uint64_t event, int step, int sample) {
  const AttentionEntry* e = entry_of(c.model, event, step, sample);
  a.found = e != nullptr;
  a.drawn = false;
  a.grid.clear();
  if (!e) return;
  a.module = e->module;
  a.origin = attention_origin(*e);
  // Nothing decoded for this entry yet: the cache forgets the last one, so
  // coming back to it later decodes it again instead of keeping this problem.
  const auto not_yet = [&a](const char* why) {
    a.tensor = UINT64_MAX;
    a.weights = {};
    a.mean.clear();
    a.side = 0;
    a.strip = false;
    a.labels.clear();
    a.problem = why;
  };
  if (a.tensor != e->weights) {
    const std::shared_ptr<const DecodedTensor> d = c.model.values().get(e->weights, e->step);
    if (d->loading || d->missing) {
      not_yet(d->missing ? "the attention weights' record is missing from the run" : "loading the attention weights ...");
      return;
    }
    const TensorValues& values = d->values;
    const std::string& error = d->error;
    a.tensor = e->weights;
    a.problem.clear();
    a.weights = {};
    a.mean.clear();
    if (!error.empty()) a.problem = "the attention weights are unreadable: " + error;
    else if (values.partial) a.problem = "only the leading rows of the attention weights were kept (tvis run --max-elems)";
    else a.weights = attention_weights(values.values, values.shape, &a.problem);
    if (a.problem.empty()) a.mean = head_mean(a.weights);
    a.side = 0;
    a.cls = false;
    a.strip = false;
    a.labels.clear();
    if (a.problem.empty() && a.weights.rows == a.weights.cols && e->tokens.empty())
      a.side = patch_grid_side(a.weights.rows, &a.cls);
    if (a.problem.empty() && !e->tokens.empty()) {  // a token model: where one token looks, over the tokens
      a.strip = true;
      for (int t = 0; t < a.weights.cols; ++t)
        a.labels.push_back(t < static_cast<int>(e->labels.size()) ? (e->labels[t] == " " ? "_" : e->labels[t])
                           : t < static_cast<int>(e->tokens.size()) ? std::to_string(e->tokens[t])
                                                                    : std::string());
    }
    if (a.problem.empty() && a.side == 0 && !a.strip)
      a.problem = "its " + std::to_string(a.weights.rows) + " x " + std::to_string(a.weights.cols) +
                  " weights are neither an image's patch grid nor a token model's; the Attention page shows them";
  }
  if (!a.problem.empty()) return;
  if (a.strip) {
    const size_t q = static_cast<size_t>(a.query_token()) * a.weights.cols;
    a.grid.assign(a.mean.begin() + static_cast<std::ptrdiff_t>(q), a.mean.begin() + static_cast<std::ptrdiff_t>(q + a.weights.cols));
  } else {
    a.grid = query_row_on_grid(a.mean, a.weights.rows, a.query_token(), a.side, a.cls);
  }
}

void draw_layer_attention_choice(LayerAttention& a) {
  if (!a.found) return;
  int paint = a.show ? 1 : 0;
  const std::string looks = "where " + query_label(a, a.query_token()) + " looks##layer_att";
  if (ImGui::RadioButton(looks.c_str(), &paint, 1)) a.show = true;
  ImGui::SameLine();
  if (ImGui::RadioButton("output strength##layer_att", &paint, 0)) a.show = false;
  if (a.show) {
    ImGui::SameLine();
    if (!a.problem.empty()) ImGui::TextDisabled("(%s)", a.problem.c_str());
    else ImGui::TextDisabled("head mean of its weights (%s); click a %s for where that %s looks", a.origin.c_str(),
                             a.strip ? "token" : "patch", a.strip ? "token" : "patch");
  }
}

nlohmann::json layer_attention_json(const LayerAttention& a) {
  using nlohmann::json;
  if (!a.found) return nullptr;
  json grid = nullptr;
  if (!a.grid.empty()) {
    grid = json::array();
    const int cols = a.cols();
    for (int r = 0; r < a.rows(); ++r)
      grid.push_back(std::vector<double>(a.grid.begin() + r * cols, a.grid.begin() + (r + 1) * cols));
  }
  return {{"painted", a.drawn},
          {"module", a.module},
          {"origin", a.origin},
          {"query", a.weights.rows > 0 ? json(a.query_token()) : json(nullptr)},
          {"query_label", a.weights.rows > 0 ? json(query_label(a, a.query_token())) : json(nullptr)},
          {"cls", a.cls},
          {"grid_side", a.side},
          {"strip", a.strip},
          {"tokens", a.strip ? json(a.labels) : json(nullptr)},
          {"grid", grid},
          {"problem", a.problem.empty() ? json(nullptr) : json(a.problem)}};
}

}  // namespace tvis::viewer
