// lr_schedule: a learning rate that falls by kFall or more within the first
// recorded steps of a param group and never rises on the way: a schedule
// meant per epoch (StepLR, ExponentialLR, MultiStepLR) stepped per batch,
// which drives the learning rate to nothing long before the first epoch
// ends. Warmups rise, one-cycle rises first, cosine and linear decays over
// the whole training fall by a sliver a step: none falls this fast at the
// start. A fall by equal differences (a linear decay, which reaches its end
// this fast only in a training of a few steps, as a short test run is) is
// not reported. Judged per optimizer class and group index over at most
// kSteps steps; reported once.
#include <cmath>
#include <map>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr double kFall = 4.0;
constexpr size_t kSteps = 10;

struct Series {
  std::vector<std::pair<const StepFact*, double>> lrs;  // step, lr
};

/// Whether the lrs up to `last` fall by equal differences (within 1 %).
bool linear(const Series& x, size_t last) {
  if (last < 2) return false;
  const double d = x.lrs[0].second - x.lrs[1].second;
  for (size_t i = 2; i <= last; ++i)
    if (std::fabs((x.lrs[i - 1].second - x.lrs[i].second) - d) > 0.01 * std::fabs(d)) return false;
  return d > 0;
}

}  // namespace

void check_lr_schedule(const RunFacts& facts, std::vector<Finding>& out) {
  std::map<std::pair<std::string, size_t>, Series> series;
  for (const StepFact& s : facts.steps())
    for (size_t g = 0; g < s.lrs.size(); ++g) {
      Series& x = series[{s.optimizer_class, g}];
      if (x.lrs.size() < kSteps && !std::isnan(s.lrs[g])) x.lrs.emplace_back(&s, s.lrs[g]);
    }
  for (const auto& [key, x] : series) {
    if (x.lrs.size() < 2 || !(x.lrs.front().second > 0)) continue;
    bool rose = false;
    size_t fell_at = 0;
    for (size_t i = 1; i < x.lrs.size() && !fell_at; ++i) {
      rose = rose || x.lrs[i].second > x.lrs[i - 1].second;
      if (!rose && x.lrs[i].second * kFall <= x.lrs.front().second) fell_at = i;
    }
    if (!fell_at || linear(x, fell_at)) continue;
    const StepFact& first = *x.lrs.front().first;
    const StepFact& at = *x.lrs[fell_at].first;
    const double a = x.lrs.front().second, b = x.lrs[fell_at].second;
    const std::string opt = key.first.empty() ? std::string("the optimizer") : key.first;
    Finding f = finding("lr_schedule", Severity::Warning,
                        "the learning rate of " + opt + (key.second ? " group " + std::to_string(key.second) : "") +
                            " fell from " + num(a) + " at step " + std::to_string(first.step) + " to " + num(b) +
                            " at step " + std::to_string(at.step) + " (" + num(a / b) + "x in " +
                            std::to_string(at.step - first.step) +
                            " steps): a schedule meant per epoch stepped per batch reaches nothing long before the "
                            "first epoch ends; call scheduler.step() once per epoch.",
                        at.step, at.event);
    f.evidence = {{"lr_first", a}, {"lr_now", b}, {"fall", a / b}, {"expected_max_fall", kFall},
                  {"steps", double(at.step - first.step)}, {"group", double(key.second)}};
    f.where.subject = Subject::OptimizerStep, f.where.phase = Phase::Optimizer;
    out.push_back(std::move(f));
    return;
  }
}

}  // namespace tvis::analysis
