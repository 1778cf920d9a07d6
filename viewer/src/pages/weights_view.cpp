// The Weights page's test surface (docs/viewer_test_surface.md, "`view` of
// the Weights page"): state()["view"] and the page's commands.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tvis/viewer_model/tensor_stats.h"
#include "weights_parts.h"

namespace tvis::viewer::weights {

using nlohmann::json;

namespace {

json stats_json(const TensorRef& r) {
  const std::optional<TensorStats> st = r ? r.stats() : std::nullopt;
  if (!st) return nullptr;
  return {{"min", st->min}, {"max", st->max}, {"mean", st->mean}, {"std", st->stddev}, {"l2", st->l2}};
}

// The keys of a parameter updated at the step: its shape, the shown tensor's statistics and what of it was
// kept, ‖Δw‖/‖w‖, the optimizer's record and whether the values are drawn.
void present_view(AppState& s, WeightsState& w, const std::string& name, const ParamTensors& p, json& v) {
  OptimizerSteps& opt = s.model.optimizer_steps();
  const int step = s.selection.step;
  bool loading = false;
  v["present"] = true;
  const TensorRef wr = tensor_at(s, p.weight, step, &loading);
  const TensorRef shown = tensor_at(s, shown_tensor(p, w.show), step, &loading);
  if (wr) {
    json shape = json::array();
    for (int64_t d : wr.shape()) shape.push_back(d);
    v["shape"] = shape;
  }
  v["stats"] = stats_json(shown);
  const double ratio = update_ratio(s, p, step, &loading);
  if (std::isfinite(ratio)) v["update_ratio"] = ratio;
  const std::optional<OptimizerStepInfo> orec = opt.step_info(step, name);
  v["optimizer"] = orec ? orec->optimizer_class : "";
  v["skipped"] = orec && orec->skipped;
  v["grad_scale"] = orec ? orec->grad_scale : 0.0;
  json hyper = json::object();
  for (const auto& [key, value] : opt.hyper_of(step, name)) hyper[key] = value;
  v["hyper"] = hyper;
  const std::string key = name + "/" + show_name(w.show) + "/" + std::to_string(step);
  auto img = w.images.find(key);
  v["values"] = img == w.images.end() ? "loading" : img->second.error.empty() ? "drawn" : "unavailable";
  if (shown) {
    const KeptValues kept = shown.kept();
    v["kept"] = kept.kept == ValuesKept::Full          ? "full"
                : kept.kept == ValuesKept::LeadingRows ? "leading_rows"
                                                       : "none";
    v["kept_rows"] = kept.kept_rows;
    const std::string note = kept_note(kept);
    v["kept_note"] = note.empty() ? json(nullptr) : json(note);
  }
}

}  // namespace

// state()["view"] on the Weights page (docs/viewer_test_surface.md).
json view(AppState& s) {
  WeightsState& w = weights_state(s);
  OptimizerSteps& opt = s.model.optimizer_steps();
  const int step = s.selection.step;
  const std::string& name = shown_param(s, w);
  json v = {{"param", name.empty() ? json(nullptr) : json(name)},
            {"show", show_name(w.show)},
            {"step", step},
            {"shape", nullptr},
            {"stats", nullptr},
            {"update_ratio", nullptr},
            {"tab", w.all_layers ? "All layers" : "One parameter"},
            {"params", opt.names()},
            {"present", false}};
  const std::optional<ParamTensors> p = name.empty() ? std::nullopt : opt.param_tensors(step, name);
  if (p) {
    present_view(s, w, name, *p, v);
  } else if (!name.empty()) {
    json steps = json::array();
    for (int k : opt.steps_of(name)) steps.push_back(k);
    v["updated_at"] = steps;
  }
  json optimizers = json::array();  // one per record of the step (a GAN's step: two)
  for (const OptimizerStepInfo& r : opt.step_infos(step)) optimizers.push_back(r.optimizer_class);
  v["optimizers"] = optimizers;
  json order = json::array();  // every parameter in All layers' sort order (weights_sort)
  for (const ParamRow& r : param_rows(s, w)) order.push_back(r.name);
  v["thumbnails"] = {{"visible", w.thumbs_visible}, {"drawn", w.thumbs_drawn}, {"order", order}};
  v["across_ranks"] = across_ranks_view(s, w, name, step);
  // a sharded parameter: where the shown rank's part lies (else null)
  const ParamShardInfo* part = name.empty() ? nullptr : find_shard(s.model.info().param_shards, name);
  v["shard"] = part ? json{{"words", shard_words(*part)}, {"global_shape", part->global_shape},
                           {"local_shape", part->local_shape}, {"offsets", part->offsets},
                           {"flat_offset", part->flat_offset}, {"placements", part->placements},
                           {"source", part->source}}
                    : json(nullptr);
  return v;
}

// {"param": NAME}, {"show": "weight"|"grad"|"update"}, {"weights_tab":
// "One parameter"|"All layers"}, {"weights_sort": "name"|"size"|"update_ratio"},
// {"thumbs_scroll": Y} (All layers' scroll position, pixels).
json command(AppState& s, const json& cmd) {
  WeightsState& w = weights_state(s);
  if (cmd.contains("param")) {
    if (!cmd["param"].is_string()) return false;
    w.param = cmd["param"].get<std::string>();
    return true;
  }
  if (cmd.contains("show")) {
    const std::string v = cmd["show"].is_string() ? cmd["show"].get<std::string>() : "";
    if (v == "weight") w.show = WeightShow::Weight;
    else if (v == "grad") w.show = WeightShow::Grad;
    else if (v == "update") w.show = WeightShow::Update;
    else return false;
    return true;
  }
  if (cmd.contains("weights_tab")) {
    const std::string v = cmd["weights_tab"].is_string() ? cmd["weights_tab"].get<std::string>() : "";
    if (v != "One parameter" && v != "All layers") return false;
    w.all_layers = v == "All layers";
    w.all_layers_request = true;
    return true;
  }
  if (cmd.contains("weights_sort")) {
    const std::string v = cmd["weights_sort"].is_string() ? cmd["weights_sort"].get<std::string>() : "";
    if (v == "name") w.sort = WeightSort::Name;
    else if (v == "size") w.sort = WeightSort::Size;
    else if (v == "update_ratio") w.sort = WeightSort::UpdateRatio;
    else return false;
    return true;
  }
  if (cmd.contains("thumbs_scroll")) {
    if (!cmd["thumbs_scroll"].is_number()) return false;
    w.thumbs_scroll = std::max(0.0f, cmd["thumbs_scroll"].get<float>());
    return true;
  }
  return nullptr;
}

}  // namespace tvis::viewer::weights
