// exploding_gradients / vanishing_gradients: dL/d(output) of the leaf
// modules, input side to output side, growing or shrinking by orders of
// magnitude.
//
// A layer's gradient size is its root mean square, ||dL/d(output)|| over
// sqrt(elements), so wide and narrow layers compare. A step is judged when
// at least kMinLayers leaf modules of its forward have a recorded norm; the
// ratio first/last (input side over output side) beyond kOrders decades is
// reported once, at the first step where it happens (later steps of a
// diverging run only repeat it), naming the steepest jump.
#include <cmath>
#include <unordered_set>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr size_t kMinLayers = 3;
constexpr double kOrders = 3.0;  // decades

struct LayerGrad {
  const EventFact* event;
  double rms;
};

double elements_of(const RunFacts& facts, const EventFact& e) {
  if (e.outputs.empty()) return 0;
  const TensorFact* t = facts.tensor(static_cast<int64_t>(e.outputs.front()));
  if (!t) return 0;
  if (t->stats.present && t->stats.count) return double(t->stats.count);
  double n = 1;
  for (int64_t d : t->shape) n *= double(d);
  return n;
}

}  // namespace

void check_gradient_flow(const RunFacts& facts, std::vector<Finding>& out) {
  // Containers: every event above a module call (through function calls too: Net.forward sits
  // between Net and its layers).
  std::unordered_set<int64_t> parents;
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::ModuleCall) continue;
    for (const EventFact* up = facts.event(e.parent); up && parents.insert(static_cast<int64_t>(up->id)).second;
         up = facts.event(up->parent)) {
    }
  }
  std::vector<std::vector<LayerGrad>> by_step;
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::ModuleCall || e.phase != Phase::Forward || e.step < 0 || e.grad_norm < 0) continue;
    if (parents.count(static_cast<int64_t>(e.id))) continue;  // a container: its leaves speak for it
    const double n = elements_of(facts, e);
    if (n <= 0) continue;
    if (by_step.size() <= size_t(e.step)) by_step.resize(size_t(e.step) + 1);
    by_step[size_t(e.step)].push_back({&e, e.grad_norm / std::sqrt(n)});
  }
  int found_step = -1;
  for (size_t s = 0; s < by_step.size(); ++s) {
    const auto& layers = by_step[s];
    if (layers.size() < kMinLayers || layers.back().rms <= 0) continue;
    const double first = layers.front().rms, last = layers.back().rms;
    const double decades = first <= 0 ? -99 : std::log10(first / last);
    if (std::fabs(decades) >= kOrders) {
      found_step = int(s);
      break;
    }
  }
  if (found_step < 0) return;
  const auto& layers = by_step[size_t(found_step)];
  const double first = layers.front().rms, last = layers.back().rms;
  const bool exploding = first > last;
  size_t jump = 1;
  double steepest = 0;
  for (size_t i = 1; i < layers.size(); ++i) {
    const double a = layers[i - 1].rms, b = layers[i].rms;
    const double d = (a <= 0 || b <= 0) ? 99 : std::fabs(std::log10(a / b));
    if (d > steepest) steepest = d, jump = i;
  }
  const EventFact& in = *layers.front().event;
  const EventFact& outl = *layers.back().event;
  std::string message =
      exploding ? "the gradient grows " + num(first / last) + "x from " + who(outl) + " back to " + who(in) +
                      " at step " + std::to_string(found_step) + " (exploding gradients)"
                : "the gradient " + (first > 0 ? "shrinks to " + num(first / last) + " of its size" : std::string("vanishes to exactly zero")) + " from " + who(outl) + " back to " +
                      who(in) + " at step " + std::to_string(found_step) +
                      " (vanishing gradients: the early layers barely learn)";
  message += "; the steepest change is between " + who(*layers[jump - 1].event) + " and " + who(*layers[jump].event);
  Finding f = finding(exploding ? "exploding_gradients" : "vanishing_gradients", Severity::Warning, message + ".",
                      found_step, layers[jump].event->id);
  f.evidence = {{"ratio_first_to_last", first / last},
                {"rms_first", first},
                {"rms_last", last},
                {"layers", double(layers.size())},
                {"first_layer", 0, in.name},
                {"last_layer", 0, outl.name}};
  f.where.phase = "backward";
  f.where.module = layers[jump - 1].event->name;
  out.push_back(std::move(f));
}

}  // namespace tvis::analysis
