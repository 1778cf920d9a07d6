// loss_trend (cases loss_non_finite / loss_rising): the loss over the recorded steps, with each
// step's learning rates.
//
// loss_non_finite: the value backward() ran on is NaN or Inf at a step.
// loss_rising: over at least kMinSteps steps, the last loss is more than
//   kRise times the first and no step fell below the first. A warning when
//   the steps' batches came from a DataLoader (losses of like batches); a
//   note otherwise: a loss over data the script makes as it goes (an RL
//   episode's summed return, which grows as the policy survives longer) may
//   rise by design.
#include <algorithm>
#include <cmath>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr size_t kMinSteps = 3;
constexpr double kRise = 2.0;

std::string lrs_at(const RunFacts& facts, int step) {
  for (const StepFact& s : facts.steps())
    if (s.step == step) {
      std::string out;
      for (size_t g = 0; g < s.lrs.size(); ++g)
        if (!std::isnan(s.lrs[g])) out += (out.empty() ? "" : ", ") + num(s.lrs[g]);
      return out;
    }
  return "";
}

}  // namespace

void check_loss_trend(const RunFacts& facts, std::vector<Finding>& out) {
  std::vector<const LossFact*> per_step;  // the first loss of each step
  for (const LossFact& l : facts.losses())
    if (l.step >= 0 && (per_step.empty() || per_step.back()->step != l.step)) per_step.push_back(&l);
  for (const LossFact* l : per_step)
    if (!std::isfinite(l->value)) {
      const std::string lr = lrs_at(facts, l->step);
      Finding f = finding("loss_trend", Severity::Error,
                          "the loss is " + num(l->value) + " at step " + std::to_string(l->step) +
                              (lr.empty() ? "" : " (learning rate " + lr + ")") +
                              ": nothing after it trains; the first non-finite value shows where it began.",
                          l->step, l->event);
      f.evidence = {{"case", 0, "loss_non_finite"}, {"loss", l->value}, {"value", 0, num(l->value)},
                    {"step", double(l->step)}, {"learning_rate", 0, lr}};
      f.where.subject = Subject::Loss, f.where.phase = Phase::Loss;
      out.push_back(std::move(f));
      return;
    }
  if (per_step.size() < kMinSteps) return;
  const double first = per_step.front()->value, last = per_step.back()->value;
  bool fell = false;
  for (const LossFact* l : per_step) fell = fell || l->value < first;
  if (first > 0 && last > kRise * first && !fell) {
    const LossFact& end = *per_step.back();
    const std::string lr = lrs_at(facts, per_step.front()->step);
    std::string values;
    for (const LossFact* l : per_step) values += (values.empty() ? "" : ", ") + num(l->value);
    const bool loader = std::any_of(facts.batches().begin(), facts.batches().end(), [&](const BatchFact& b) {
      const EventFact* e = facts.event(static_cast<int64_t>(b.event));
      return e && e->kind == EventKind::DataFetch;
    });
    Finding f = finding("loss_trend", loader ? Severity::Warning : Severity::Note,
                        "the loss rose from " + num(first) + " to " + num(last) + " over " +
                            std::to_string(per_step.size()) + " steps (" + values + ")" +
                            (lr.empty() ? "" : " with learning rate " + lr) +
                            (loader ? std::string(": training is diverging; try a smaller learning rate.")
                                    : std::string(": training may be diverging (try a smaller learning rate), unless "
                                                  "the loss follows data the script makes as it goes, as an RL "
                                                  "episode's return does (no DataLoader batches were recorded).")),
                        end.step, end.event);
    f.evidence = {{"case", 0, "loss_rising"}, {"first", first}, {"last", last}, {"steps", double(per_step.size())},
                  {"learning_rate", 0, lr}, {"dataloader", loader ? 1.0 : 0.0}};
    f.where.subject = Subject::Loss, f.where.step = end.step;
    out.push_back(std::move(f));
  }
}

}  // namespace tvis::analysis
