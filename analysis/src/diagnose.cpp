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

const char* subject_name(Subject s) {
  switch (s) {
    case Subject::Run: return "run";
    case Subject::Call: return "call";
    case Subject::Batch: return "batch";
    case Subject::Loss: return "loss";
    case Subject::Parameter: return "parameter";
    case Subject::OptimizerStep: return "optimizer_step";
  }
  return "run";
}

const std::vector<std::string>& check_kinds() {
  static const std::vector<std::string> kinds = {
      "non_finite",          "exploding_gradients", "vanishing_gradients", "dead_units",
      "update_ratio",        "param_not_updated",   "param_without_grad",  "stale_gradients",
      "mode",                "probabilities_as_logits", "target_out_of_range", "constant_targets",
      "unnormalized_inputs", "repeated_batch",      "loss_trend",          "not_optimized",
      "loss_scale",          "optimizer_no_effect", "eval_output_scale",   "lr_schedule",
      "loss_shape",          "ranks_diverge",       "duplicate_rank_data", "ranks_missing"};
  return kinds;
}

void order_worst_first(std::vector<Finding>& out) {
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity < b.severity;
    if (a.order_step != b.order_step) return a.order_step < b.order_step;
    return a.order_event < b.order_event;
  });
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
  check_loss_scale(facts, out);
  check_eval_scale(facts, out);
  check_lr_schedule(facts, out);
  check_loss_shape(facts, out);
  order_worst_first(out);
  return out;
}

std::vector<Finding> diagnose(const std::vector<const RunFacts*>& ranks) {
  if (ranks.empty()) return {};
  std::vector<Finding> out = diagnose(*ranks.front());
  check_ranks(ranks, out);
  order_worst_first(out);
  return out;
}

std::string nothing_to_judge(const RunFacts& facts) {
  if (const NoticeFact* n = facts.notice("recorder_error"))
    return n->message.empty() ? std::string("recording stopped after an internal error of the recorder") : n->message;
  if (facts.meta().capture)
    return "the run is a model capture (tvis graph / check), not a training: diagnose judges training steps";
  if (facts.steps().empty() && facts.steps_recorded() == 0) {
    std::string why = "the run holds no completed optimizer step";
    if (!facts.exception().empty()) why += " (the script stopped: " + facts.exception() + ")";
    return why;
  }
  return "";
}

}  // namespace tvis::analysis
