// probabilities_as_logits / target_out_of_range / constant_targets: what
// a classification loss was handed.
//
// probabilities_as_logits: cross_entropy's input with every value in [0, 1]
//   and a mean of 1/C over C classes (rows summing to 1: softmax ran first;
//   cross_entropy applies log_softmax again and its gradients shrink), or
//   nll_loss's input not ≤ 0 (probabilities where log-probabilities belong).
// target_out_of_range: class targets below 0 (other than ignore_index) or
//   at least C.
// constant_targets: every target of a batch of more than one is the same class.
// Only class-index targets are judged (soft targets share the input's shape).
// A loss call that raised (CPU cross_entropy refuses targets outside the
// class range, so no LossRecord follows) is judged from its LossCall event:
// detail ("raised", "1"), its input and target as the event's two inputs
// (in that order), and its ignore_index as detail.
#include <cmath>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr double kRowSumTolerance = 1e-3;

bool is_call(const LossFact& l, const char* what) { return l.call.find(what) != std::string::npos; }

/// The LossFacts of loss calls that raised: no LossRecord names their event.
std::vector<LossFact> raised_calls(const RunFacts& facts) {
  std::vector<LossFact> out;
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::LossCall || !e.detail->raised().value_or(false)) continue;
    bool recorded = false;
    for (const LossFact& l : facts.losses()) recorded = recorded || l.event == e.id;
    if (recorded) continue;
    LossFact l;
    l.step = e.step, l.event = e.id, l.call = e.name, l.value = std::nan("");
    if (e.inputs.size() != 2) continue;  // the recorder names both or neither
    l.logits = static_cast<int64_t>(e.inputs[0]), l.targets = static_cast<int64_t>(e.inputs[1]);
    if (const flatbuffers::Optional<int64_t> index = e.detail->ignore_index()) l.ignore_index = *index;
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

void check_loss_inputs(const RunFacts& facts, std::vector<Finding>& out) {
  bool said_probs = false, said_range = false, said_one = false;
  std::vector<LossFact> losses = facts.losses();
  const size_t recorded = losses.size();  // the raised calls follow
  for (LossFact& l : raised_calls(facts)) losses.push_back(std::move(l));
  for (size_t i = 0; i < losses.size(); ++i) {
    const LossFact& l = losses[i];
    const bool raised = i >= recorded;
    const bool ce = is_call(l, "cross_entropy") || is_call(l, "CrossEntropyLoss");
    const bool nll = is_call(l, "nll_loss") || is_call(l, "NLLLoss");
    if (!ce && !nll) continue;
    const TensorFact* x = facts.tensor(l.logits);
    const TensorFact* y = facts.tensor(l.targets);
    if (!x || !x->stats.present || x->shape.size() < 2) continue;
    const double classes = double(x->shape[1]);
    const Stats& s = x->stats;
    if (!said_probs && s.non_finite() == 0 && classes >= 2) {
      const bool probs = ce ? (s.min >= 0 && s.max <= 1 && std::fabs(s.mean * classes - 1) < kRowSumTolerance)
                            : (s.min >= 0 && s.max <= 1 && s.max > 0);
      if (probs) {
        said_probs = true;
        Finding f = finding("probabilities_as_logits", Severity::Error,
                            ce ? "cross_entropy at step " + std::to_string(l.step) +
                                     " got probabilities (every value in [0, 1], rows summing to 1), not logits: it "
                                     "applies log_softmax itself, so a softmax before it flattens the loss and "
                                     "shrinks the gradients"
                               : "nll_loss at step " + std::to_string(l.step) +
                                     " got values in [0, 1], not log-probabilities: pass log_softmax's output (or "
                                     "logits to cross_entropy)",
                            l.step, l.event);
        f.evidence = {{"min", s.min}, {"max", s.max}, {"mean_times_classes", s.mean * classes}, {"classes", classes}};
        f.where.subject = Subject::Loss, f.where.phase = Phase::Loss, f.where.role = Role::Logits;
        f.message += ".";
        out.push_back(std::move(f));
      }
    }
    if (!y || !y->stats.present || !y->integral() || y->shape == x->shape || y->stats.count == 0) continue;
    const Stats& t = y->stats;
    const bool below = t.min < 0 && t.min != double(l.ignore_index);
    if (!said_range && (below || t.max >= classes)) {
      said_range = true;
      Finding f = finding("target_out_of_range", Severity::Error,
                          "the targets at step " + std::to_string(l.step) + " run from " + num(t.min) + " to " +
                              num(t.max) + " but the input has " + num(classes) + " classes (0 to " +
                              num(classes - 1) + "): the labels and the model's output size disagree" +
                              (raised ? " (" + l.call + " raised on them)." : "."),
                          l.step, l.event);
      f.evidence = {{"target_min", t.min}, {"target_max", t.max}, {"classes", classes}};
      f.where.subject = Subject::Loss, f.where.phase = Phase::Loss, f.where.role = Role::Target;
      out.push_back(std::move(f));
    }
    if (!said_one && t.count > 1 && t.min == t.max && t.min != double(l.ignore_index)) {
      said_one = true;
      Finding f = finding("constant_targets", Severity::Warning,
                          "every one of the " + std::to_string(t.count) + " targets at step " +
                              std::to_string(l.step) + " is class " + num(t.min) +
                              ": the labels do not vary (a broken label column, or a sorted dataset without "
                              "shuffling).",
                          l.step, l.event);
      f.evidence = {{"class", t.min}, {"targets", double(t.count)}};
      f.where.subject = Subject::Loss, f.where.phase = Phase::Loss, f.where.role = Role::Target;
      out.push_back(std::move(f));
    }
  }
}

}  // namespace tvis::analysis
