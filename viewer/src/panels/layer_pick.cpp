// The layer panel's picking: which tensor it shows, its values, its maps
// for the sample's row, and the sample's picture (layer_parts.h). Nothing
// here draws.
#include <string>

#include "budget_thumbnail.h"
#include "layer_parts.h"
#include "tvis/viewer_model/call_tensors.h"
#include "tvis/viewer_model/class_names.h"
#include "tvis/viewer_model/followed_sample.h"

namespace tvis::viewer {

namespace {

const char* kMaxElemsHint = "record with a larger `tvis run --max-elems N` to keep them";

std::string not_kept(const TensorRef& t) {
  return "Values not kept for this tensor (" + t.shape_label() + ", " + std::to_string(t.element_count()) +
         " elements): " +
         (has_budget_thumbnail(t) ? std::string(budget_refused_sentence())
                                    : std::string("only its statistics were recorded; ") + kMaxElemsHint) +
         ".";
}

// The picture under the map: kept in v.picture once decoded (a picture still
// loading leaves the last one; a sample without one clears it).
void pick_picture(RunModel& model, LayerViewState& v) {
  const SampleAtStep at = sample_at_step(model, v.target.step, v.target.sample);
  if (!at.picture) {
    if (at.complete) v.picture.reset();
    return;
  }
  if (v.picture && v.picture->id == *at.picture) return;
  std::shared_ptr<const DecodedTensor> d = model.values().get(*at.picture, v.target.step);
  if (!d->loading) v.picture = std::move(d);
}

}  // namespace

LayerPick pick_layer(RunModel& model, LayerViewState& v, const CallRef& call) {
  LayerPick p;
  const LayerTarget& t = v.target;
  p.row = sample_row(model, t.step, t.sample);
  bool complete = true;
  p.shown = call_tensor(model, call, v.of_gradient, &complete);
  if (!p.shown) {
    p.problem = !complete ? "loading ..."
                : v.of_gradient ? "No gradient recorded for this call: backward did not pass through its output."
                                : "No output tensor recorded for this call.";
    return p;
  }
  const TensorRef& shown = p.shown;
  p.thumbnail = has_budget_thumbnail(shown);
  if (shown.kept().kept == ValuesKept::None) {
    p.problem = not_kept(shown);
    return p;
  }
  if (!v.values || v.values->id != shown.id() || v.values->loading) v.values = model.values().get(shown);
  if (v.values->loading) {
    p.problem = "loading values ...";
    return p;
  }
  if (!v.values->error.empty()) {
    p.problem = "Values unreadable: " + v.values->error;
    return p;
  }
  if (p.row < 0) {
    p.problem = t.sample >= 0 ? "Sample " + std::to_string(t.sample) + " is not in this step's batch (or its batch is loading)."
                              : "loading ...";
    return p;
  }
  if (v.maps_tensor != shown.id() || v.maps_row != p.row) {
    v.maps = layer_maps(v.values->values, shown.shape(), p.row);
    v.maps_tensor = shown.id();
    v.maps_row = p.row;
    ++v.texture_version;
  }
  if (!v.maps.problem.empty()) {
    p.problem = "Values not kept for sample " + std::to_string(t.sample) + ": " + v.maps.problem + "; " +
                (p.thumbnail ? budget_refused_sentence() : kMaxElemsHint) + ".";
    return p;
  }
  pick_picture(model, v);
  return p;
}

std::vector<std::string> neuron_labels(RunModel& model, const LayerViewState& v) {
  std::vector<std::string> out;
  const LayerMaps& m = v.maps;
  if (m.layout != LayerMaps::Layout::Vector && m.layout != LayerMaps::Layout::Other) return out;
  if (!produced_logits(model, v.target.event, v.target.step)) return out;
  const std::map<int64_t, std::string> classes = class_names_at(model, v.target.step);
  for (int i = 0; i < m.neurons && !classes.empty(); ++i) {
    auto it = classes.find(i);
    out.push_back(it == classes.end() ? std::to_string(i) : it->second);
  }
  return out;
}

void prefetch_layer(RunModel& model, const LayerTarget& t) {
  const CallRef call = model.call(t.event);
  if (!call) return;
  bool complete = true;
  for (bool gradient : {false, true}) {
    TensorRef ref = call_tensor(model, call, gradient, &complete);
    if (!ref || ref.kept().kept == ValuesKept::None) continue;
    model.cache().get(ref.data_chunk());  // starts the read when not resident
  }
}

}  // namespace tvis::viewer
