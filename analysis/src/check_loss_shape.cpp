// loss_shape: an elementwise loss (mse, l1, smooth_l1, huber, binary cross
// entropy, ...) whose input and target have different shapes that broadcast
// to more elements than either holds: output (N, 1) against targets (N,)
// compares every prediction with every target (an N x N loss over the wrong
// dimension). torch only warns. Judged from the loss call's first two
// tensor arguments (the LossCall event's inputs); reported once, as an
// error, at the first step where it happens.
#include <algorithm>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

bool elementwise(const std::string& call) {
  static const char* names[] = {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                                "soft_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "kl_div",
                                "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss"};
  return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return call.find(n) != std::string::npos; });
}

/// The broadcast shape of a and b; empty with *ok false when they do not broadcast.
std::vector<int64_t> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, bool* ok) {
  std::vector<int64_t> out(std::max(a.size(), b.size()));
  *ok = true;
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1, y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return *ok = false, std::vector<int64_t>();
    out[out.size() - 1 - i] = std::max(x, y);
  }
  return out;
}

double elements(const std::vector<int64_t>& s) {
  double n = 1;
  for (int64_t d : s) n *= double(d);
  return n;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

void check_loss_shape(const RunFacts& facts, std::vector<Finding>& out) {
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::LossCall || e.inputs.size() < 2 || !elementwise(e.name)) continue;
    const TensorFact* x = facts.tensor(static_cast<int64_t>(e.inputs[0]));
    const TensorFact* y = facts.tensor(static_cast<int64_t>(e.inputs[1]));
    if (!x || !y || x->shape == y->shape) continue;
    bool ok = false;
    const std::vector<int64_t> b = broadcast(x->shape, y->shape, &ok);
    const double n = elements(b);
    if (!ok || n <= std::max(elements(x->shape), elements(y->shape))) continue;
    Finding f = finding("loss_shape", Severity::Error,
                        "at step " + std::to_string(e.step) + " " + e.name + " compared an input of shape " +
                            shape_text(x->shape) + " with targets of shape " + shape_text(y->shape) +
                            ": they broadcast to " + shape_text(b) + ", every prediction against every target, so " +
                            "the loss is over the wrong dimension; give the target the input's shape (unsqueeze or "
                            "squeeze one of them).",
                        e.step, e.id);
    f.evidence = {{"input_shape", 0, shape_text(x->shape)}, {"target_shape", 0, shape_text(y->shape)},
                  {"broadcast_shape", 0, shape_text(b)}, {"elements", n}, {"call", 0, e.name}};
    f.where.subject = Subject::Loss, f.where.phase = Phase::Loss;
    out.push_back(std::move(f));
    return;
  }
}

}  // namespace tvis::analysis
