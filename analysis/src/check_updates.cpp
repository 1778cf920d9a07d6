// update_ratio / param_not_updated / param_without_grad / optimizer_no_effect:
// what the optimizer did to each parameter it holds.
//
// update_ratio: ||Δw|| / ||w|| of one step, judged against what that
//   optimizer's step is designed to be (optimizer_family.h):
//   - gradient steps (SGD, a hand-written update): above kGradientWarn a
//     warning, above kGradientError an error (the usual band is around 1e-3;
//     the first steps of a healthy SGD run with momentum on a fresh
//     initialisation reach a third of a layer's size, as ResNet's stem does at
//     lr 0.1; half of the weight in one step is past what trains);
//   - adaptive steps (Adam family, RMSprop, Adagrad, Adadelta, ...): each
//     element moves by about lr whatever its gradient, so the ratio is lr over
//     the initialisation's scale: Adam at lr 3e-2 on a layer drawn at ±0.05
//     gives 0.54, Adagrad at lr 0.1 on a wide linear model drawn at ±0.02
//     gives 5, and both train. Judged with RMSprop's early amplification
//     removed, above kAdaptiveWarn (every element moved by ten times the
//     weight's typical size: Adam at lr 1 for 1e-3) a warning, above
//     kAdaptiveError an error. An lr too high within that band shows as the
//     loss rising (loss_trend) or turning non-finite (non_finite);
//   - closure steps (LBFGS): the step is the sum of up to max_iter inner
//     iterations, so the ratio is judged per inner iteration, as a gradient
//     step.
//   Only weights of two or more dimensions and at least kMinElements
//   elements are judged (biases and norm scales start at 0 or 1, and a
//   handful of regression coefficients start far from their fit: their
//   ratio says nothing about the learning rate), and not a weight that was
//   zero at a recorded step, exactly or nearly (below kNearZeroRms per
//   element: LoRA's B, a zero-initialised residual branch, timm's cls_token
//   drawn with std 1e-6): it has no size to compare its update with; its
//   first updates are the optimizer's designed step from zero.
// param_not_updated: a parameter with a non-zero gradient that the step left
//   exactly unchanged, in a step that changed others (lr 0 for its group,
//   frozen by hand, or a gradient the optimizer never saw).
// param_without_grad: some parameters the optimizer holds had no .grad at
//   every recorded step while others had one (an unused branch, or
//   requires_grad turned off by mistake).
// optimizer_no_effect: a step that changed nothing: none of the parameters
//   the optimizer holds had a gradient (it holds only frozen ones), or they
//   had non-zero gradients and a non-zero learning rate and not one of them
//   moved. A step whose every group has lr 0 (a warmup's first step) is not
//   judged. Trainable parameters that no optimizer holds are named with it.
// Skipped steps (GradScaler found inf/NaN) are not judged.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "check_util.h"
#include "optimizer_family.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr double kGradientWarn = 0.5, kGradientError = 1.0;
constexpr double kNearZeroRms = 1e-4;  // a weight this small per element starts at (nearly) zero
constexpr double kAdaptiveWarn = 10.0, kAdaptiveError = 30.0;
constexpr uint64_t kMinElements = 16;

double l2_of(const RunFacts& facts, int64_t id) {
  const TensorFact* t = facts.tensor(id);
  return t && t->stats.present ? t->stats.l2 : std::nan("");
}

/// Whether a weight is zero, exactly or per element below kNearZeroRms.
bool near_zero(const RunFacts& facts, int64_t id) {
  const TensorFact* t = facts.tensor(id);
  if (!t || !t->stats.present || t->stats.count == 0) return false;
  return t->stats.l2 / std::sqrt(double(t->stats.count)) < kNearZeroRms;
}

struct Large {
  int step;
  std::string name;
  double ratio, judged, warn, error;  // judged: the ratio the thresholds apply to
  uint64_t event;
  OptimizerFamily family;
};

const char* family_words(OptimizerFamily f) {
  switch (f) {
    case OptimizerFamily::Adaptive: return "an adaptive optimizer's step, per element about its lr";
    case OptimizerFamily::Closure: return "per inner iteration of the closure step";
    default: return "a gradient step; around 1e-3 is usual";
  }
}

/// The ratio of `p` at step `s` when it is judged, with its thresholds.
bool judge_ratio(const RunFacts& facts, const StepFact& s, const ParamFact& p, int t, Large* out) {
  const TensorFact* weight = facts.tensor(static_cast<int64_t>(p.weight));
  const double w = l2_of(facts, static_cast<int64_t>(p.weight)), u = l2_of(facts, p.update);
  if (!weight || weight->shape.size() < 2 || weight->stats.count < kMinElements || !(w > 0) || !(u >= 0))
    return false;
  const ExpectedStep e = expected_step(s, p, t);
  const double ratio = u / w;
  Large l{s.step, p.name, ratio, ratio, kGradientWarn, kGradientError, s.event, e.family};
  if (e.family == OptimizerFamily::Adaptive) l.judged = ratio / e.amplification, l.warn = kAdaptiveWarn, l.error = kAdaptiveError;
  if (e.family == OptimizerFamily::Closure) l.judged = ratio / e.inner_iterations;
  *out = l;
  return l.judged > l.warn;
}

void report_large(const std::vector<Large>& large, std::vector<Finding>& out) {
  const Large& worst = *std::max_element(large.begin(), large.end(),
                                         [](const Large& a, const Large& b) { return a.judged / a.warn < b.judged / b.warn; });
  std::vector<std::string> names;
  for (const Large& l : large)
    if (std::find(names.begin(), names.end(), l.name) == names.end()) names.push_back(l.name);
  const bool per_iteration = worst.family == OptimizerFamily::Closure;
  Finding f = finding("update_ratio", worst.judged > worst.error ? Severity::Error : Severity::Warning,
                      "one optimizer step changed " + worst.name + " by " + num(worst.ratio) +
                          " of its size at step " + std::to_string(worst.step) + " (||Δw||/||w||" +
                          (per_iteration || worst.judged != worst.ratio ? ", judged " + num(worst.judged) : "") +
                          " against at most " + num(worst.warn) + " for " + family_words(worst.family) +
                          "): the learning rate is too high for " + names_of(names) + ".",
                      large.front().step, large.front().event);
  f.evidence = {{"ratio", worst.ratio},        {"judged_ratio", worst.judged}, {"expected_max", worst.warn},
                {"error_above", worst.error},  {"parameters", double(names.size())}, {"parameter", 0, worst.name}};
  f.where.subject = Subject::Parameter, f.where.step = worst.step, f.where.param = worst.name;
  f.where.phase = Phase::Optimizer, f.where.role = Role::Update;
  out.push_back(std::move(f));
}

/// The first judged step that changed nothing (see the top of the file), or nullptr.
const StepFact* no_effect_step(const RunFacts& facts, int* with_grad_out) {
  for (const StepFact& s : facts.steps()) {
    if (s.skipped || s.params.empty()) continue;
    int with_grad = 0, nonzero_grad = 0, updates = 0, changed = 0;
    for (const ParamFact& p : s.params) {
      if (p.grad >= 0) ++with_grad;
      if (l2_of(facts, p.grad) > 0) ++nonzero_grad;
      const double u = l2_of(facts, p.update);
      if (!std::isnan(u)) ++updates, changed += u > 0;
    }
    const bool lr_positive = std::any_of(s.lrs.begin(), s.lrs.end(), [](double lr) { return lr > 0; });
    const bool no_grads = with_grad == 0;
    const bool nothing_moved = nonzero_grad > 0 && lr_positive && updates == int(s.params.size()) && changed == 0;
    if (no_grads || nothing_moved) return *with_grad_out = with_grad, &s;
  }
  return nullptr;
}

void report_no_effect(const RunFacts& facts, const StepFact& s, int with_grad, std::vector<Finding>& out) {
  const EventFact* e = facts.event(static_cast<int64_t>(s.event));
  const std::vector<std::string> trainable = e ? words_of(e->detail->grads_unoptimized_names()) : std::vector<std::string>();
  std::vector<std::string> held;
  for (const ParamFact& p : s.params) held.push_back(p.name);
  const std::string opt = s.optimizer_class.empty() ? std::string("the optimizer") : s.optimizer_class;
  std::string message = opt + ".step() at step " + std::to_string(s.step) + " changed nothing: " +
                        (with_grad == 0 ? "none of the " + std::to_string(held.size()) +
                                              " parameters it holds had a gradient (" + names_of(held, 3) +
                                              "), so they are frozen or unused"
                                        : "its parameters had gradients and a non-zero learning rate, yet not one moved");
  if (!trainable.empty())
    message += ", while " + names_of(trainable, 3) + (trainable.size() == 1 ? " has" : " have") +
               " a gradient and no optimizer holds " + (trainable.size() == 1 ? "it" : "them");
  message += ": build the optimizer from the parameters that train (requires_grad True).";
  Finding f = finding("optimizer_no_effect", Severity::Error, std::move(message), s.step, s.event);
  f.evidence = {{"case", 0, with_grad == 0 ? "no_gradients" : "no_update"},
                {"parameters_held", double(held.size())},
                {"with_gradient", double(with_grad)},
                {"trainable_not_held", double(trainable.size())},
                {"parameter", 0, held.front()}};
  f.where.subject = Subject::Parameter, f.where.step = s.step, f.where.phase = Phase::Optimizer;
  f.where.param = held.front(), f.where.role = Role::Update;
  out.push_back(std::move(f));
}

}  // namespace

void check_updates(const RunFacts& facts, std::vector<Finding>& out) {
  std::vector<Large> large;
  std::vector<std::string> zero;
  int zero_step = -1;
  uint64_t zero_event = 0;
  std::map<std::string, int> with_grad, seen, taken;  // per parameter: steps with a gradient, held, judged
  std::set<std::string> was_zero;                     // weights exactly zero at a recorded step
  int judged = 0;
  for (const StepFact& s : facts.steps()) {
    if (s.skipped) continue;
    ++judged;
    bool any_changed = false;
    std::vector<std::string> unchanged;
    for (const ParamFact& p : s.params) {
      seen[p.name] += 1;
      const int t = ++taken[p.name];
      if (p.grad >= 0) with_grad[p.name] += 1;
      if (near_zero(facts, static_cast<int64_t>(p.weight))) was_zero.insert(p.name);
      const double u = l2_of(facts, p.update);
      if (std::isnan(u)) continue;
      if (u > 0) any_changed = true;
      Large l;
      if (!was_zero.count(p.name) && judge_ratio(facts, s, p, t, &l)) large.push_back(l);
      if (u == 0 && p.grad >= 0 && l2_of(facts, p.grad) > 0) unchanged.push_back(p.name);
    }
    if (any_changed && !unchanged.empty() && zero.empty()) zero = unchanged, zero_step = s.step, zero_event = s.event;
  }
  if (!large.empty()) report_large(large, out);
  if (!zero.empty()) {
    Finding f = finding("param_not_updated", Severity::Warning,
                        names_of(zero) + (zero.size() == 1 ? " has" : " have") +
                            " a gradient but the optimizer left " + (zero.size() == 1 ? "it" : "them") +
                            " exactly unchanged at step " + std::to_string(zero_step) +
                            " while it updated other parameters (learning rate 0 for that group, frozen by hand, or a gradient too small to change a float).",
                        zero_step, zero_event);
    f.evidence = {{"parameters", double(zero.size())}, {"parameter", 0, zero.front()}};
    f.where.subject = Subject::Parameter, f.where.param = zero.front(), f.where.phase = Phase::Optimizer;
    f.where.role = Role::Update;
    out.push_back(std::move(f));
  }
  int step_grads = 0;
  if (const StepFact* s = no_effect_step(facts, &step_grads)) report_no_effect(facts, *s, step_grads, out);
  std::vector<std::string> never;
  for (const auto& [name, n] : seen)
    if (!with_grad.count(name)) never.push_back(name);
  if (judged > 0 && !never.empty() && never.size() < seen.size()) {
    const StepFact& s0 = facts.steps().front();
    Finding f = finding("param_without_grad", Severity::Warning,
                        names_of(never) + (never.size() == 1 ? " is" : " are") +
                            " held by the optimizer but received no gradient in any recorded step (" +
                            std::to_string(judged) + "): an unused branch, or requires_grad turned off by mistake.",
                        s0.step, s0.event);
    f.evidence = {{"parameters", double(never.size())}, {"steps", double(judged)}, {"parameter", 0, never.front()}};
    f.where.subject = Subject::Parameter, f.where.param = never.front(), f.where.step = s0.step;
    f.where.role = Role::Grad;
    out.push_back(std::move(f));
  }
}

}  // namespace tvis::analysis
