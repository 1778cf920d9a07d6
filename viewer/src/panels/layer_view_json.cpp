// The LAYER object of the test surface (layer_view.h), built when asked from
// the model's answers and the panel's state.
#include "budget_thumbnail.h"
#include "grid_json.h"
#include "layer_parts.h"
#include "tvis/viewer_model/tensor_stats.h"
#include "tvis/viewer_model/call_tensors.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

json stats_json(const TensorRef& r) {
  const std::optional<TensorStats> st = r ? r.stats() : std::nullopt;
  if (!st) return nullptr;
  return {{"mean", st->mean}, {"std", st->stddev},         {"min", st->min},
          {"max", st->max},   {"mean_abs", st->mean_abs}, {"l2", st->l2}};
}

// The clicked neuron's exact value: a vector's bar, a map's mean |x|.
json picked_value(const LayerMaps& m, int n) {
  const bool vector = m.layout == LayerMaps::Layout::Vector || m.layout == LayerMaps::Layout::Other;
  return vector ? json(m.values[static_cast<size_t>(n)]) : json(m.strength[static_cast<size_t>(n)]);
}

}  // namespace

json layer_view_json(RunModel& model, LayerViewState& v) {
  if (!v.shown) return nullptr;
  const LayerTarget& t = v.target;
  json out = {{"module", v.module}, {"tab", layer_tab_name(v.tab)}, {"of", v.of_gradient ? "gradient" : "activation"},
              {"step", t.step},     {"sample", t.sample},           {"row", sample_row(model, t.step, t.sample)}};
  const CallRef call = model.call(t.event);
  LayerPick p;
  p.problem = "loading the call ...";
  if (call) p = pick_layer(model, v, call);
  const bool ok = p.problem.empty();
  const LayerMaps& m = v.maps;
  out["map"] = ok && !m.map.empty() ? grid_json(m.map, m.map_rows, m.map_cols) : json(nullptr);
  out["neurons_order"] = ok ? json(m.order) : json(nullptr);
  const std::vector<std::string> labels = ok ? neuron_labels(model, v) : std::vector<std::string>{};
  out["neuron_labels"] = labels.empty() ? json(nullptr) : json(labels);
  const bool picked = ok && v.picked_neuron >= 0 && v.picked_neuron < m.neurons;
  out["picked_neuron"] = picked ? json(v.picked_neuron) : json(nullptr);
  out["picked_value"] = picked ? picked_value(m, v.picked_neuron) : json(nullptr);
  if (call) {
    const CallTensors tensors = call_tensors(model, call);
    out["stats"] = {{"activation", stats_json(tensors.output)}, {"gradient", stats_json(tensors.gradient)}};
  } else {
    out["stats"] = {{"activation", nullptr}, {"gradient", nullptr}};
  }
  out["attention"] = layer_attention_json(v.attention);
  if (!p.problem.empty()) out["problem"] = p.problem;
  out["thumbnail"] = p.shows_thumbnail() ? budget_thumbnail_json(p.shown) : json(nullptr);
  return out;
}

}  // namespace tvis::viewer
