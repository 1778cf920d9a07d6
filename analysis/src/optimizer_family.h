// optimizer_family.h: what one step of a known optimizer is designed to do,
// so an update is judged against that optimizer's own step (private to
// analysis/).
//
// Families, by the optimizer's class name:
//   Adaptive (Adam, AdamW, NAdam, RAdam, Adamax, SparseAdam and other *Adam*,
//     RMSprop, Adagrad, Adadelta, Adafactor): the step of each element is set
//     by the learning rate, not by the gradient's size. Adam-family steps are
//     about lr per element (bias correction makes the first one exactly that
//     for a steady gradient); RMSprop's t-th step is up to lr / sqrt(1 - alpha^t)
//     (10 lr at the first step with alpha 0.99); Adagrad's first step is lr;
//     Adadelta's and Adafactor's are unit-free (no lr-sized expectation).
//   Closure (LBFGS): one step() runs up to max_iter inner iterations (20 by
//     default), each a full step of its own.
//   Gradient (SGD, a hand-written update "", anything else): the step is
//     lr times the (momentum-averaged) gradient.
#pragma once

#include <cmath>
#include <string>

#include "tvis/analysis/run_facts.h"

namespace tvis::analysis {

enum class OptimizerFamily { Gradient, Adaptive, Closure };

struct ExpectedStep {
  OptimizerFamily family = OptimizerFamily::Gradient;
  /// Expected size of one element's update at this step in weight units
  /// (adaptive optimizers with an lr-sized step); NaN when the step depends
  /// on the gradient's size or is unit-free.
  double per_element = std::nan("");
  /// How many times the designed per-element step exceeds lr at this step
  /// (RMSprop's early steps); 1 otherwise.
  double amplification = 1;
  /// Inner iterations one step() may run (LBFGS's max_iter); 1 otherwise.
  double inner_iterations = 1;
};

inline OptimizerFamily family_of(const std::string& optimizer_class) {
  static const char* adaptive[] = {"Adam", "RMSprop", "Adagrad", "Adadelta", "Adafactor", "Lamb", "Lion"};
  for (const char* a : adaptive)
    if (optimizer_class.find(a) != std::string::npos) return OptimizerFamily::Adaptive;
  if (optimizer_class == "LBFGS") return OptimizerFamily::Closure;
  return OptimizerFamily::Gradient;
}

/// The designed step of `p` at the `t`-th step (1-based) the optimizer took.
inline ExpectedStep expected_step(const StepFact& s, const ParamFact& p, int t) {
  ExpectedStep e;
  e.family = family_of(s.optimizer_class);
  const double lr = s.lr_of(p);
  const GroupFact* g = p.group >= 0 && size_t(p.group) < s.groups.size() ? &s.groups[p.group] : nullptr;
  if (e.family == OptimizerFamily::Closure) {
    const double it = g ? g->number("max_iter") : std::nan("");
    e.inner_iterations = it >= 1 ? it : 20;
    return e;
  }
  if (e.family != OptimizerFamily::Adaptive || !(lr > 0)) return e;
  const std::string& c = s.optimizer_class;
  if (c.find("Adadelta") != std::string::npos || c.find("Adafactor") != std::string::npos) return e;
  if (c.find("RMSprop") != std::string::npos) {
    double alpha = g ? g->number("alpha") : std::nan("");
    if (!(alpha >= 0 && alpha < 1)) alpha = 0.99;
    e.amplification = 1 / std::sqrt(1 - std::pow(alpha, std::max(t, 1)));
    const double momentum = g ? g->number("momentum") : 0;
    if (momentum > 0 && momentum < 1) e.amplification /= (1 - momentum);
  }
  e.per_element = lr * e.amplification;
  return e;
}

}  // namespace tvis::analysis
