#include "tvis/analysis/diagnose.h"

#include <algorithm>

namespace tvis::analysis {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    default: return "note";
  }
}

const std::vector<std::string>& check_kinds() {
  static const std::vector<std::string> kinds = {
      "non_finite",          "exploding_gradients", "vanishing_gradients", "update_too_large",
      "update_zero",         "no_gradient",         "probabilities_as_logits", "targets_out_of_range",
      "one_class_targets",   "unnormalized_inputs", "repeated_batch",      "loss_non_finite",
      "loss_rising",         "eval_mode_in_training", "train_mode_in_evaluation",
      "gradients_carried",   "dead_units",          "not_optimized"};
  return kinds;
}

std::vector<Finding> diagnose(const RunFacts& facts) {
  std::vector<Finding> out;
  check_non_finite(facts, out);
  check_gradient_flow(facts, out);
  check_updates(facts, out);
  check_loss_inputs(facts, out);
  check_data(facts, out);
  check_loss_trend(facts, out);
  check_modes(facts, out);
  check_carried_grads(facts, out);
  check_dead_units(facts, out);
  check_unoptimized(facts, out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity < b.severity;
    if (a.order_step != b.order_step) return a.order_step < b.order_step;
    return a.order_event < b.order_event;
  });
  return out;
}

}  // namespace tvis::analysis
