// non_finite: the first tensor, in the order the training computed them,
// that holds NaN or Inf, and what produced it.
//
// Order within a step: the weights as the step began; the data, forward and
// loss tensors by call; the gradients dL/d(output) in backward order (the
// reverse of the calls); parameter gradients; updates. Only whole-tensor
// records count (a followed sample's row repeats its tensor's values).
// An additive attention mask (every finite value 0, the rest infinite, no
// NaN: nn.Transformer.generate_square_subsequent_mask) holds -Inf by design
// and is not a finding, nor does it make its call's inputs non-finite. Nor
// is a tensor holding Inf and no NaN in a step that stayed finite (every
// loss, gradient, update and weight of the step finite, no NaN anywhere):
// masked logits (masked_fill(mask, -inf) before a softmax or a
// cross_entropy) by design; an Inf that is a mistake reaches the loss or
// the gradients.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "call_order.h"
#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

const char* what_of(Role r) {
  switch (r) {
    case Role::Weight: return "the weight";
    case Role::GradOutput: return "the gradient dL/d(output)";
    case Role::GradInput: return "the gradient dL/d(input)";
    case Role::Grad: return "the gradient";
    case Role::Update: return "the update";
    case Role::Batch: return "the batch";
    case Role::Target: return "the targets";
    case Role::Input: return "the input";
    default: return "the output";
  }
}

bool additive_mask(const TensorFact& t) {
  const Stats& s = t.stats;
  return s.nan == 0 && s.inf > 0 && s.finite > 0 && s.min == 0 && s.max == 0;
}

bool all_inputs_finite(const RunFacts& facts, const EventFact& e) {
  bool any = false;
  for (uint64_t id : e.inputs)
    if (const TensorFact* t = facts.tensor(static_cast<int64_t>(id)); t && t->stats.present) {
      any = true;
      if (t->stats.non_finite() > 0 && !additive_mask(*t)) return false;
    }
  return any;
}

/// Steps where the damage of a non-finite value shows: a NaN anywhere, a
/// non-finite gradient, update or weight, or a non-finite loss.
std::set<int> damaged_steps(const RunFacts& facts) {
  std::set<int> out;
  for (const TensorFact& t : facts.tensors()) {
    if (!t.stats.present || t.stats.non_finite() == 0) continue;
    const bool param = t.role == Role::Grad || t.role == Role::Update || t.role == Role::Weight ||
                       t.role == Role::GradOutput || t.role == Role::GradInput || t.role == Role::LocalGrad;
    if (t.stats.nan > 0 || param) out.insert(t.step);
  }
  for (const LossFact& l : facts.losses())
    if (!std::isfinite(l.value)) out.insert(l.step);
  return out;
}

}  // namespace

void check_non_finite(const RunFacts& facts, std::vector<Finding>& out) {
  const TensorFact* first = nullptr;
  std::tuple<int, int, int64_t> first_key{};
  size_t tensors_hit = 0;
  const std::set<int> damaged = damaged_steps(facts);
  for (const TensorFact& t : facts.tensors()) {
    if (t.sample != -1 || !t.stats.present || t.stats.non_finite() == 0 || additive_mask(t)) continue;
    if (t.stats.nan == 0 && !damaged.count(t.step)) continue;  // masked by design: the step stayed finite
    ++tensors_hit;
    const std::tuple<int, int, int64_t> key = call_order(facts, t);
    if (!first || key < first_key) first = &t, first_key = key;
  }
  if (!first) return;
  const EventFact* e = facts.event(first->event);
  const int step = std::get<0>(first_key);
  const bool param = first->role == Role::Weight || first->role == Role::Grad || first->role == Role::Update;
  std::string where = param ? first->name : (e ? who(*e) : first->name);
  std::string message = std::string(what_of(first->role)) + " of " + where + " at step " + std::to_string(step) +
                        " is the first value that is not finite (" + std::to_string(first->stats.nan) + " NaN, " +
                        std::to_string(first->stats.inf) + " Inf of " + std::to_string(first->stats.count) + ")";
  if (first->role == Role::Output && e && all_inputs_finite(facts, *e))
    message += ": " + where + " produced it from finite inputs";
  else if (first->role == Role::Batch || first->role == Role::Target)
    message += ": the data itself holds it, before any layer ran";
  else if (first->role == Role::Weight)
    message += ": the weights were already broken when the step began";
  Finding f = finding("non_finite", Severity::Error, message + ".", step, static_cast<uint64_t>(std::max<int64_t>(first->event, 0)));
  f.evidence = {{"nan", double(first->stats.nan)}, {"inf", double(first->stats.inf)},
                {"count", double(first->stats.count)}, {"tensors_non_finite", double(tensors_hit)}};
  f.where.phase = first->role == Role::GradOutput || first->role == Role::GradInput ? Phase::Backward
                  : first->role == Role::Grad || first->role == Role::Update ? Phase::Optimizer
                  : e ? e->phase : Phase::None;
  f.where.role = first->role;
  if (param) {
    f.where.subject = Subject::Parameter;
    f.where.param = first->name;
  } else if (e) {
    f.where.subject = first->role == Role::Batch || first->role == Role::Target ? Subject::Batch : Subject::Call;
    f.where.module = e->name;
  }
  out.push_back(std::move(f));
}

}  // namespace tvis::analysis
