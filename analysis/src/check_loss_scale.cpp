// loss_scale: a divisor applied to the loss after its call that does not
// match the batch.
//
// The factor is value / call_value of a LossRecord whose `outer` is a
// division or a multiplication (DivBackward0, MulBackward0): 0.25 for
// loss / 4. Only factors below 1 (divisors) are judged: a factor above 1 is
// a loss scaler's (AMP), not a mistake of this kind. With k backwards in the
// step (the micro-batches of one optimizer step), the divisor the batch asks
// for is:
//   reduction "sum": the batch (the logits' first dim; for class targets
//     over tokens, the targets counted also match) times k;
//   reduction "mean": k (gradient accumulation).
// Any other divisor is a warning (case `divisor`), once, at its first step.
// Losses without a recognised call, with reduction "none", or without
// call_value say nothing.
// A step of k > 1 backwards, each on the undivided output of the same
// mean-reduced call (gradient accumulation without `/ k`: k times the
// gradients), is a note (case `undivided_accumulation`): summing the means
// of several batches is sometimes meant, so it is not called a mistake.
#include <cmath>
#include <map>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr double kTolerance = 1e-3;  // relative: value and call_value are float32

bool about(double a, double b) { return b > 0 && std::fabs(a - b) <= kTolerance * b; }

/// The factor applied after the loss call when it is a divisor; NaN otherwise.
double divisor_factor(const LossFact& l) {
  if (l.outer != "DivBackward0" && l.outer != "MulBackward0") return std::nan("");
  const double factor = l.value / l.call_value;
  return std::isfinite(factor) && factor > 0 && factor < 1 && !about(factor, 1.0) ? factor : std::nan("");
}

/// The divisor the batch asks for (see the top of the file); -1 when unknown.
double expected_divisor(const LossFact& l, double batch, double backwards) {
  if (l.reduction == "mean") return backwards;
  return batch > 0 ? batch * backwards : -1;
}

/// Whether `factor` divides the loss by what the batch asks for.
bool matches(const LossFact& l, double factor, double batch, double targets, double backwards) {
  if (l.reduction == "mean") return about(factor * backwards, 1.0);
  for (double d : {batch, targets})
    if (d > 0 && about(factor * d * backwards, 1.0)) return true;
  return false;
}

/// "32 (the batch size)", "4 (the backwards of the step)", ... for the message.
std::string asked_for(const LossFact& l, double divisor, double backwards) {
  if (l.reduction == "mean")
    return backwards > 1 ? num(backwards) + " (the backwards of the step)" : "no divisor (one backward in the step)";
  return num(divisor) + (backwards > 1 ? " (a batch of " + num(divisor / backwards) + " times the step's " +
                                             num(backwards) + " backwards)"
                                       : " (the batch size)");
}

/// The first step whose k > 1 backwards all ran on the undivided output of
/// one mean-reduced call; -1 when none.
int undivided_step(const RunFacts& facts, const std::map<int, int>& backwards) {
  std::map<int, bool> undivided;  // step -> every loss so far undivided, of the step's first call
  std::map<int, std::string> call;
  for (const LossFact& l : facts.losses()) {
    const bool plain = !l.call.empty() && l.reduction == "mean" && l.outer.empty();
    auto [it, first] = undivided.emplace(l.step, plain);
    if (first) call[l.step] = l.call;
    else it->second = it->second && plain && l.call == call[l.step];
  }
  for (const auto& [step, all] : undivided)
    if (all && backwards.find(step)->second > 1) return step;
  return -1;
}

void report_undivided(const RunFacts& facts, int step, double k, std::vector<Finding>& out) {
  const LossFact* l = nullptr;
  for (const LossFact& x : facts.losses())
    if (x.step == step && !l) l = &x;
  Finding f = finding("loss_scale", Severity::Note,
                      "at step " + std::to_string(step) + " backward() ran " + num(k) + " times on the mean loss of " +
                          l->call + ", undivided, before one optimizer step: the gradients add up to " + num(k) +
                          " times one batch's mean; if this is gradient accumulation, divide each loss by " +
                          num(k) + ".",
                      step, l->event);
  f.evidence = {{"case", 0, "undivided_accumulation"}, {"factor", 1.0}, {"divisor", 1.0}, {"expected_divisor", k},
                {"reduction", 0, "mean"}, {"backwards", k}};
  f.where.subject = Subject::Loss, f.where.phase = Phase::Loss;
  out.push_back(std::move(f));
}

}  // namespace

void check_loss_scale(const RunFacts& facts, std::vector<Finding>& out) {
  // step -> losses backward() ran on before its optimizer step opened: a
  // closure's later calls (LBFGS's inner iterations) lie inside the step's
  // OptimizerStep event and are not more micro-batches. A step holding
  // several optimizers' updates (a GAN) counts none: its backwards feed
  // different optimizers.
  std::map<int, uint64_t> opened;
  std::map<int, int> optimizers;
  for (const StepFact& s : facts.steps()) {
    opened.emplace(s.step, s.event);
    ++optimizers[s.step];
  }
  std::map<int, int> backwards;
  for (const LossFact& l : facts.losses()) {
    auto it = opened.find(l.step);
    const bool before_step = it == opened.end() || l.event < it->second;
    backwards[l.step] += before_step && optimizers[l.step] <= 1 ? 1 : 0;
  }
  if (const int step = undivided_step(facts, backwards); step >= 0) report_undivided(facts, step, backwards[step], out);
  for (const LossFact& l : facts.losses()) {
    if (l.call.empty() || (l.reduction != "sum" && l.reduction != "mean")) continue;
    const double factor = divisor_factor(l);
    if (std::isnan(factor)) continue;
    const TensorFact* x = facts.tensor(l.logits);
    const TensorFact* y = facts.tensor(l.targets);
    const double batch = x && !x->shape.empty() ? double(x->shape[0]) : -1;
    const double targets = y && y->stats.present ? double(y->stats.count) : -1;
    const double k = backwards[l.step];
    const double divisor = expected_divisor(l, batch, k);
    if (divisor <= 0 || matches(l, factor, batch, targets, k)) continue;
    Finding f = finding("loss_scale", Severity::Warning,
                        "at step " + std::to_string(l.step) + " the " + l.reduction + "-reduced loss of " + l.call +
                            " was divided by " + num(1 / factor) + " where the batch asks for " +
                            asked_for(l, divisor, k) + ": each step's gradients are " + num(factor * divisor) +
                            " times what the batch gives, as if the learning rate were scaled by that.",
                        l.step, l.event);
    f.evidence = {{"case", 0, "divisor"}, {"factor", factor}, {"divisor", 1 / factor}, {"expected_divisor", divisor},
                  {"reduction", 0, l.reduction}, {"batch", batch}, {"targets", targets}, {"backwards", k}};
    f.where.subject = Subject::Loss, f.where.phase = Phase::Loss;
    out.push_back(std::move(f));
    return;
  }
}

}  // namespace tvis::analysis
