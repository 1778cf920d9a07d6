// The Weights page's "One parameter" view (weights_parts.h): the shown
// parameter at the Selection's step as its weight, gradient or update Δw:
// a header with the step's figures (‖w‖, ‖g‖, ‖Δw‖, ‖Δw‖/‖w‖, the
// optimizer's hyperparameters), the values as an image beside their
// statistics and histogram; or why there is nothing to show.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "../link.h"
#include "../theme.h"
#include "tvis/widgets/format_number.h"
#include "weights_parts.h"

namespace tvis::viewer::weights {

namespace {

// The parameter's three tensors at the step (each empty when not recorded).
struct StepTensors {
  TensorRef weight, grad, update;
  bool loading = false;  // a record's chunk is still read
  const TensorRef& shown(WeightShow show) const {
    return show == WeightShow::Weight ? weight : show == WeightShow::Grad ? grad : update;
  }
};

/// Mixed precision: a step GradScaler skipped, and the scale the backward's
/// gradients carried (the .grad shown here is unscaled: read in optimizer.step()).
void draw_scaler_note(const std::optional<OptimizerStepInfo>& orec) {
  if (!orec) return;
  if (orec->skipped)
    ImGui::TextColored(ImVec4(0.95f, 0.55f, 0.25f, 1), "GradScaler skipped this step: a gradient was inf or NaN, "
                       "so no update ran (scale %s).", widgets::format_exact(orec->grad_scale).c_str());
  else if (orec->grad_scale > 0)
    ImGui::TextDisabled("GradScaler: the backward's gradients carried scale %s; .grad here is unscaled.",
                        widgets::format_exact(orec->grad_scale).c_str());
}

// `name` is not updated at `step`: why, the steps that update it and a button to the next of them.
void draw_not_updated(AppState& s, OptimizerSteps& opt, const std::string& name, int step) {
  const std::vector<int> steps = opt.steps_of(name);
  if (steps.empty())
    muted("No parameter named '" + name + "' was recorded" + (opt.ready() ? "." : " (still reading)."));
  else
    muted("'" + name + "' is not updated at step " + std::to_string(step) +
          (opt.at_step(step) ? " (this step's optimizer updates other parameters)" : " (no update recorded there)") +
          ". It is updated at step" + (steps.size() > 1 ? "s " : " ") + steps_label(steps) + ".");
  if (steps.empty()) return;
  auto next = std::lower_bound(steps.begin(), steps.end(), step);
  const int target = next == steps.end() ? steps.back() : *next;
  if (ImGui::Button(("Go to step " + std::to_string(target)).c_str())) go_to_step(s, target);
}

// The header: the parameter, its shape, the optimizer of the step, and the step's figures.
void draw_header(AppState& s, const std::string& name, const ParamTensors& p, StepTensors& t,
                 const std::optional<OptimizerStepInfo>& orec) {
  OptimizerSteps& opt = s.model.optimizer_steps();
  const int step = s.selection.step;
  ImGui::Text("%s", name.c_str());
  ImGui::SameLine();
  if (t.weight) ImGui::TextDisabled("%s  %s", t.weight.shape_label().c_str(), t.weight.dtype_label());
  const std::string oclass = orec && !orec->optimizer_class.empty() ? orec->optimizer_class
                                                                     : "a hand-written update (no torch.optim)";
  ImGui::SameLine();
  ImGui::TextDisabled("  step %d by %s", step, oclass.c_str());
  draw_scaler_note(orec);
  if (!ImGui::BeginTable("wfigures", 8, ImGuiTableFlags_SizingStretchProp)) return;
  figure("‖w‖", norm_of(t.weight), "L2 norm of the weight before the step");
  figure("‖g‖", norm_of(t.grad), "L2 norm of .grad at the step");
  figure("‖Δw‖", norm_of(t.update), "L2 norm of p_after − p_before");
  const double ratio = update_ratio(s, p, step, &t.loading);
  figure("‖Δw‖/‖w‖", std::isnan(ratio) ? std::string("—") : widgets::format_exact(ratio),
         "update ratio: ~1e-3 is typical; much larger or smaller is worth a look");
  for (const auto& [key, value] : opt.hyper_of(step, name)) {
    if (key != "lr" && key != "momentum" && key != "betas" && key != "weight_decay" && key != "eps") continue;
    figure(key.c_str(), value, nullptr);
  }
  ImGui::EndTable();
}

// The shown tensor has no record at the step: still reading, or why it has none.
void draw_missing(WeightShow show, bool loading, int step, const std::optional<OptimizerStepInfo>& orec) {
  if (loading) ImGui::TextDisabled("Reading the tensor records of step %d ...", step);
  else if (show == WeightShow::Grad)
    muted("No gradient at this step: .grad was None (the parameter took no part in the backward, or is frozen).");
  else if (show == WeightShow::Update)
    muted(orec && orec->skipped ? "No update at this step: GradScaler skipped it (its gradients held inf or NaN)."
                                  : "No update Δw was recorded for this parameter at this step.");
  else
    muted("The weight's record is missing at this step.");
}

// The shown tensor's values (decoded once per (param, show, step)) beside its statistics and histogram.
void draw_shown(AppState& s, WeightsState& w, const std::string& name, const ParamTensors& p, const TensorRef& shown) {
  const int step = s.selection.step;
  const std::string key = name + "/" + show_name(w.show) + "/" + std::to_string(step);
  const ShownImage* si =
      shown_image(s, w, key, shown.id(), shown.kept().kept, step, w.show == WeightShow::Update ? &p : nullptr);
  if (!si) {
    ImGui::TextDisabled("Reading values (chunk %u) ...", shown.data_chunk());
    draw_stats_and_histogram(shown.stats());
    return;
  }
  const float em = ImGui::GetFontSize();
  const float side_w = std::max(em * 18, ImGui::GetContentRegionAvail().x * 0.32f);
  const float h = ImGui::GetContentRegionAvail().y;
  ImGui::BeginChild("wimage", ImVec2(ImGui::GetContentRegionAvail().x - side_w - ImGui::GetStyle().ItemSpacing.x, h));
  draw_values(s, w, *si, kept_note(shown.kept()), std::max(em * 8, ImGui::GetContentRegionAvail().y - em * 2.5f));
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("wside", ImVec2(0, h));
  ImGui::Text("%s", w.show == WeightShow::Weight ? "weight (before the step)"
                    : w.show == WeightShow::Grad ? "gradient (.grad at the step)"
                                                 : "update Δw = p_after − p_before");
  draw_stats_and_histogram(shown.stats());
  ImGui::EndChild();
}

}  // namespace

void draw_one_param(AppState& s, WeightsState& w) {
  OptimizerSteps& opt = s.model.optimizer_steps();
  const int step = s.selection.step;
  const std::string& name = shown_param(s, w);
  if (name.empty()) {
    muted(opt.ready() ? "No parameter is named at any recorded step." : "Reading the optimizer steps ...");
    return;
  }
  const std::optional<ParamTensors> p = opt.param_tensors(step, name);
  if (!p) {
    draw_not_updated(s, opt, name, step);
    return;
  }
  StepTensors t;
  t.weight = tensor_at(s, p->weight, step, &t.loading);
  t.grad = tensor_at(s, p->grad, step, &t.loading);
  t.update = tensor_at(s, p->update, step, &t.loading);
  const std::optional<OptimizerStepInfo> orec = opt.step_info(step, name);
  draw_header(s, name, *p, t, orec);
  if (const ParamShardInfo* part = find_shard(s.model.info().param_shards, name))  // a sharded parameter
    ImGui::TextWrapped("This rank's part of %s: %s%s", name.c_str(), shard_words(*part).c_str(),
                       s.ranks.single() ? " (open the run folder to see the whole, assembled from every rank)"
                                        : "; the whole, assembled from every rank, is below");
  draw_across_ranks(s, w, name, step);
  const TensorRef& shown = t.shown(w.show);
  if (!shown) {
    draw_missing(w.show, t.loading, step, orec);
    return;
  }
  draw_shown(s, w, name, *p, shown);
}

}  // namespace tvis::viewer::weights
