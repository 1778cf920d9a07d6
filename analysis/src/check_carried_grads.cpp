// stale_gradients: at a backward, parameters it reached for the first time
// in the step already held a non-zero .grad, left by an earlier step's
// backward: no zero_grad() between the optimizer step and this backward, so
// the update adds up the gradients of every step so far. The recorder checks
// each optimizer parameter once per step, at the first backward that reaches
// it (recorder/python/tvis/session/carried_grads.py: BackwardCall detail
// grads_checked, grads_carried, grads_carried_norm, grads_carried_param):
// several backwards before one optimizer.step() (gradient accumulation) are
// not reported. Reported once, at the first backward where it happens.
#include <cmath>
#include <cstdlib>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

void check_carried_grads(const RunFacts& facts, std::vector<Finding>& out) {
  const EventFact* first = nullptr;
  size_t steps = 0;
  int last_step = 0;
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::BackwardCall || count_of(e.detail->grads_carried()) <= 0) continue;
    if (!first || e.step != last_step) ++steps;
    last_step = e.step;
    if (!first) first = &e;
  }
  if (!first) return;
  const double carried = count_of(first->detail->grads_carried());
  const double checked = count_of(first->detail->grads_checked());
  double norm = first->detail->grads_carried_norm().value_or(std::nan(""));
  if (!std::isfinite(norm)) norm = -1;  // NaN or Inf gradients (non_finite names them): not a number JSON holds
  const std::string name = text_of(first->detail->grads_carried_param());
  Finding f = finding("stale_gradients", Severity::Warning,
                      "at the first backward of step " + std::to_string(first->step) + ", " + num(carried) + " of " +
                          num(checked) + " parameters it reached (" + (name.empty() ? "?" : name) +
                          " the largest) already held a non-zero .grad from an earlier step (norm " + num(norm) +
                          "): zero_grad() is missing, so each update adds up the gradients of every step so far.",
                      first->step, first->id);
  f.evidence = {{"parameters", carried}, {"checked", checked}, {"norm", norm}, {"steps", double(steps)},
                {"parameter", 0, name.empty() ? "?" : name}};
  f.where.subject = Subject::Parameter, f.where.phase = Phase::Backward, f.where.param = name, f.where.role = Role::Grad;
  out.push_back(std::move(f));
}

}  // namespace tvis::analysis
