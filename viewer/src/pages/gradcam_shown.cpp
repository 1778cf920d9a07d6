// gradcam_shown.cpp: gradcam_shown() (gradcam_shown.h): the Grad-CAM
// records of the step and sample, the layer shown, its map's values and
// the true-class hint.
#include "gradcam_shown.h"

#include <algorithm>

namespace tvis::viewer {

namespace {

std::vector<const GradCamEntry*> maps_of(AppState& s, int step, int sample, bool true_class) {
  std::vector<const GradCamEntry*> out;
  for (const GradCamEntry& e : s.model.insights().gradcam())
    if (e.step == step && e.sample == sample && e.true_class == true_class) out.push_back(&e);
  return out;
}

// Why the true-class map is missing: the sample was misclassified and the run had no --gradcam-true.
std::string missing_true_reason(AppState& s, int step, int sample) {
  for (const GradCamEntry& e : s.model.insights().gradcam())
    if (e.step == step && e.sample == sample)
      return "Sample " + std::to_string(sample) + " has no true-class map at step " + std::to_string(step) +
             ": the model predicted class " + std::to_string(e.class_index) +
             ", not its true class, and true-class maps of misclassified samples are recorded only with "
             "`tvis run --gradcam-true` (one more gradient pass each).";
  return "No Grad-CAM map for sample " + std::to_string(sample) + " at this step.";
}

int layer_named(const std::vector<const GradCamEntry*>& maps, const std::string& module) {
  int layer = 0;
  for (size_t i = 0; i < maps.size(); ++i)
    if (maps[i]->module == module) layer = static_cast<int>(i);
  return layer;
}

}  // namespace

std::shared_ptr<const DecodedTensor> gradcam_map_values(AppState& s, const GradCamEntry& e, int* rows, int* cols,
                                                        std::string* problem) {
  std::shared_ptr<const DecodedTensor> d = decoded_tensor(s, e.map, e.step);
  if (d->loading) return *problem = "loading ...", nullptr;
  if (!d->error.empty()) return *problem = d->error, nullptr;
  if (d->values.shape.size() != 2) return *problem = "a Grad-CAM map that is not [h, w]", nullptr;
  *rows = static_cast<int>(d->values.shape[0]);
  *cols = static_cast<int>(d->values.shape[1]);
  return d;
}

GradCamShown gradcam_shown(AppState& s, InsightsState& st) {
  const GradCamState& g = st.gradcam;
  GradCamShown out;
  out.step = s.selection.step;
  out.samples = samples_at_step(s.model.insights().gradcam(), out.step);
  out.sample = insight_sample(s, st, out.samples);
  out.maps = maps_of(s, out.step, out.sample, g.true_class);
  out.no_true = maps_of(s, out.step, out.sample, true).empty();
  if (out.no_true) out.true_hint = missing_true_reason(s, out.step, out.sample);
  if (out.maps.empty()) {
    const bool predicted = g.true_class && !maps_of(s, out.step, out.sample, false).empty();
    out.state = predicted ? GradCamShown::State::NoTrueMap : GradCamShown::State::NoMaps;
    return out;
  }
  out.layer = layer_named(out.maps, g.module);
  out.entry = out.maps[out.layer];
  out.map = gradcam_map_values(s, *out.entry, &out.rows, &out.cols, &out.problem);
  out.state = out.map ? GradCamShown::State::Shown : GradCamShown::State::Problem;
  return out;
}

}  // namespace tvis::viewer
