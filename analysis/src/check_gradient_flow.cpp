// exploding_gradients / vanishing_gradients: ||dL/d(output)|| of the layers
// that own a weight (a parameter of two or more dimensions: Linear, Conv,
// Embedding, ...), input side to output side, growing or shrinking by orders
// of magnitude.
//
// Layers without weights are left out: pooling and reshapes change how many
// elements carry the gradient (an average pool over H×W positions spreads
// dL/d(output) thin), which is the architecture, not a training problem;
// across weighted layers the total norm keeps that effect within about
// sqrt(H×W). Layers are ordered by their first forward call of the step. A step is judged when at least kMinLayers weights have a
// gradient; the ratio first/last (input side over output side) beyond
// kOrders decades is reported once, at the first step where it happens
// (later steps of a diverging run only repeat it), naming the steepest jump.
// In a step whose optimizer holds a weight that is exactly zero (LoRA's B,
// a zero-initialised residual branch), layers whose gradient is exactly zero
// are left out: the zero weight cuts them off by design, until it moves.
#include <algorithm>
#include <cmath>
#include <map>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr size_t kMinLayers = 3;
constexpr double kOrders = 3.0;  // decades

struct LayerGrad {
  const EventFact* event;  // the layer's first forward call of the step
  std::string param;
  double ratio;            // ||dL/d(output)|| of that call
};

// Each step's weighted layers with a recorded ||dL/d(output)||, in forward order.
std::vector<LayerGrad> layers_of(const RunFacts& facts, const StepFact& s,
                                 const std::map<std::pair<int, std::string>, const EventFact*>& first_call) {
  std::vector<LayerGrad> out;
  for (const ParamFact& p : s.params) {
    const TensorFact* w = facts.tensor(static_cast<int64_t>(p.weight));
    if (!w || w->shape.size() < 2) continue;
    auto call = first_call.find({s.step, module_of(p.name)});
    if (call == first_call.end()) continue;
    if (call->second->grad_norm < 0) continue;
    out.push_back({call->second, p.name, call->second->grad_norm});
  }
  std::stable_sort(out.begin(), out.end(), [](const LayerGrad& a, const LayerGrad& b) { return a.event->id < b.event->id; });
  return out;
}

/// Whether a weight the step's optimizer holds is exactly zero (LoRA's B, a
/// zero-initialised residual branch): the gradient of every layer that feeds
/// only through it is exactly zero by design.
bool holds_zero_weight(const RunFacts& facts, const StepFact& s) {
  for (const ParamFact& p : s.params) {
    const TensorFact* w = facts.tensor(static_cast<int64_t>(p.weight));
    if (w && w->shape.size() >= 2 && w->stats.present && w->stats.count > 0 && w->stats.l2 == 0) return true;
  }
  return false;
}

double decades(double a, double b) { return (a <= 0 || b <= 0) ? (a <= 0 ? -99 : 99) : std::log10(a / b); }

}  // namespace

void check_gradient_flow(const RunFacts& facts, std::vector<Finding>& out) {
  std::map<std::pair<int, std::string>, const EventFact*> first_call;
  for (const EventFact& e : facts.events())
    if (e.kind == EventKind::ModuleCall && e.phase == Phase::Forward && e.step >= 0)
      first_call.emplace(std::make_pair(e.step, e.name), &e);
  for (const StepFact& s : facts.steps()) {
    if (s.skipped) continue;
    std::vector<LayerGrad> layers = layers_of(facts, s, first_call);
    if (holds_zero_weight(facts, s))  // zero by design upstream of a zero-initialised weight
      layers.erase(std::remove_if(layers.begin(), layers.end(), [](const LayerGrad& l) { return l.ratio == 0; }),
                   layers.end());
    if (layers.size() < kMinLayers || layers.back().ratio <= 0) continue;
    const double first = layers.front().ratio, last = layers.back().ratio;
    if (std::fabs(decades(first, last)) < kOrders) continue;
    const bool exploding = first > last;
    size_t jump = 1;
    double steepest = 0;
    for (size_t i = 1; i < layers.size(); ++i) {
      const double d = std::fabs(decades(layers[i - 1].ratio, layers[i].ratio));
      if (d > steepest) steepest = d, jump = i;
    }
    const EventFact& in = *layers.front().event;
    const EventFact& outl = *layers.back().event;
    std::string message =
        exploding ? "the gradient grows " + num(first / last) + "x from " + who(outl) + " back to " + who(in) +
                        " at step " + std::to_string(s.step) + " (exploding gradients)"
                  : "the gradient " +
                        (first > 0 ? "shrinks to " + num(first / last) + " of its size"
                                   : std::string("vanishes to exactly zero")) +
                        " from " + who(outl) + " back to " + who(in) + " at step " + std::to_string(s.step) +
                        " (vanishing gradients: the early layers barely learn)";
    message += "; the steepest change is between " + who(*layers[jump - 1].event) + " and " +
               who(*layers[jump].event);
    Finding f = finding(exploding ? "exploding_gradients" : "vanishing_gradients", Severity::Warning, message + ".",
                        s.step, layers[jump].event->id);
    f.evidence = {{"ratio_first_to_last", first / last},
                  {"norm_first", first},
                  {"norm_last", last},
                  {"layers", double(layers.size())},
                  {"first_layer", 0, in.name},
                  {"last_layer", 0, outl.name}};
    f.where.subject = Subject::Call, f.where.phase = Phase::Backward, f.where.role = Role::GradOutput;
    f.where.module = layers[jump - 1].event->name;
    out.push_back(std::move(f));
    return;
  }
}

}  // namespace tvis::analysis
