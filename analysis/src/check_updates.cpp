// update_ratio / param_not_updated / param_without_grad: what the optimizer did to
// each parameter it holds.
//
// update_ratio: ||Δw|| / ||w|| above kTooLarge in a step (the usual band
//   is around 1e-3; a quarter of the weight in one step diverges: Adam's
//   first step on a small-initialised projection reaches a tenth), for weights
//   of two or more dimensions (biases and norm scales often start at 0 or 1,
//   where the ratio says nothing about the learning rate).
// param_not_updated: a parameter with a non-zero gradient that the step left
//   exactly unchanged, in a step that changed others (lr 0 for its group,
//   frozen by hand, or a gradient the optimizer never saw).
// param_without_grad: a parameter the optimizer holds whose .grad was None at every
//   recorded step (an unused branch, or requires_grad turned off by mistake).
// Skipped steps (GradScaler found inf/NaN) are not judged.
#include <algorithm>
#include <cmath>
#include <map>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr double kTooLarge = 0.25;

double l2_of(const RunFacts& facts, int64_t id) {
  const TensorFact* t = facts.tensor(id);
  return t && t->stats.present ? t->stats.l2 : std::nan("");
}

}  // namespace

void check_updates(const RunFacts& facts, std::vector<Finding>& out) {
  struct Large { int step; std::string name; double ratio; uint64_t event; };
  std::vector<Large> large;
  std::vector<std::string> zero;
  int zero_step = -1;
  uint64_t zero_event = 0;
  std::map<std::string, int> with_grad, seen;
  int judged = 0;
  for (const StepFact& s : facts.steps()) {
    if (s.skipped) continue;
    ++judged;
    bool any_changed = false;
    std::vector<std::string> unchanged;
    for (const ParamFact& p : s.params) {
      seen[p.name] += 1;
      if (p.grad >= 0) with_grad[p.name] += 1;
      const double w = l2_of(facts, static_cast<int64_t>(p.weight)), u = l2_of(facts, p.update);
      if (std::isnan(u)) continue;
      if (u > 0) any_changed = true;
      const TensorFact* weight = facts.tensor(static_cast<int64_t>(p.weight));
      if (w > 0 && weight && weight->shape.size() >= 2 && u / w > kTooLarge)
        large.push_back({s.step, p.name, u / w, s.event});
      if (u == 0 && p.grad >= 0 && l2_of(facts, p.grad) > 0) unchanged.push_back(p.name);
    }
    if (any_changed && !unchanged.empty() && zero.empty()) zero = unchanged, zero_step = s.step, zero_event = s.event;
  }
  if (!large.empty()) {
    auto worst = *std::max_element(large.begin(), large.end(), [](const Large& a, const Large& b) { return a.ratio < b.ratio; });
    std::vector<std::string> names;
    for (const Large& l : large)
      if (std::find(names.begin(), names.end(), l.name) == names.end()) names.push_back(l.name);
    Finding f = finding("update_ratio", worst.ratio > 1 ? Severity::Error : Severity::Warning,
                        "one optimizer step changed " + worst.name + " by " + num(worst.ratio) +
                            " of its size at step " + std::to_string(worst.step) +
                            " (||Δw||/||w||; around 1e-3 is usual): the learning rate is too high for " +
                            names_of(names) + ".",
                        large.front().step, large.front().event);
    f.evidence = {{"ratio", worst.ratio}, {"parameters", double(names.size())}, {"parameter", 0, worst.name}};
    f.where.page = "Weights", f.where.step = worst.step, f.where.param = worst.name, f.where.phase = "optimizer";
    out.push_back(std::move(f));
  }
  if (!zero.empty()) {
    Finding f = finding("param_not_updated", Severity::Warning,
                        names_of(zero) + (zero.size() == 1 ? " has" : " have") +
                            " a gradient but the optimizer left " + (zero.size() == 1 ? "it" : "them") +
                            " exactly unchanged at step " + std::to_string(zero_step) +
                            " while it updated other parameters (learning rate 0 for that group, frozen by hand, or a gradient too small to change a float).",
                        zero_step, zero_event);
    f.evidence = {{"parameters", double(zero.size())}, {"parameter", 0, zero.front()}};
    f.where.page = "Weights", f.where.param = zero.front(), f.where.phase = "optimizer";
    out.push_back(std::move(f));
  }
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
    f.where.page = "Weights", f.where.param = never.front(), f.where.step = s0.step;
    out.push_back(std::move(f));
  }
}

}  // namespace tvis::analysis
