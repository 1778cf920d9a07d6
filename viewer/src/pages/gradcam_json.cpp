// gradcam_json.cpp: gradcam_json() (gradcam_shown.h): state().view of the
// Grad-CAM sub-page, from gradcam_shown()'s values: {module, step, sample,
// class, target, map, layers, opacity, true_class_hint}; with no true-class
// map where one was asked for, module, class and map null and the hint;
// null when no map is shown.
#include "gradcam_shown.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

json map_rows(const std::vector<double>& m, int rows, int cols) {
  json map = json::array();
  for (int r = 0; r < rows; ++r)
    map.push_back(std::vector<double>(m.begin() + static_cast<size_t>(r) * cols, m.begin() + static_cast<size_t>(r + 1) * cols));
  return map;
}

json modules(const std::vector<const GradCamEntry*>& maps) {
  json layers = json::array();
  for (const auto* x : maps) layers.push_back(x->module);
  return layers;
}

}  // namespace

json gradcam_json(AppState& s, InsightsState& st) {
  const GradCamShown g = gradcam_shown(s, st);
  if (g.state == GradCamShown::State::NoTrueMap)
    return {{"module", nullptr}, {"step", g.step},     {"sample", g.sample},
            {"class", nullptr},  {"target", "true"},   {"map", nullptr},
            {"true_class_hint", g.true_hint}};
  if (g.state != GradCamShown::State::Shown) return nullptr;
  const GradCamEntry& e = *g.entry;
  return {{"module", e.module},
          {"step", g.step},
          {"sample", g.sample},
          {"class", e.class_index},
          {"target", e.true_class ? "true" : "predicted"},
          {"map", map_rows(g.map->values.values, g.rows, g.cols)},
          {"layers", modules(g.maps)},
          {"opacity", st.gradcam.opacity},
          {"true_class_hint", g.no_true ? json(g.true_hint) : json(nullptr)}};
}

}  // namespace tvis::viewer
