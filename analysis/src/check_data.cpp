// unnormalized_inputs / repeated_batch: the batches the DataLoader yielded.
//
// unnormalized_inputs: a floating-point batch part of at least kMinElements
//   whose mean is beyond kMean or standard deviation beyond kStd (raw 0-255
//   pixels, unscaled features): the first layers saturate or learn slowly.
// repeated_batch: a step's batch with the same statistics, part for part
//   (count, min, max, mean, std, l2, all equal), as the step before: the
//   same batch again (an iterator re-created every step, a cached batch).
// NaN and Inf in the data are non_finite's.
#include <cmath>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr uint64_t kMinElements = 64;
constexpr double kMean = 5.0, kStd = 10.0;

bool same(const Stats& a, const Stats& b) {
  return a.present && b.present && a.count == b.count && a.min == b.min && a.max == b.max && a.mean == b.mean &&
         a.std == b.std && a.l2 == b.l2;
}

}  // namespace

void check_data(const RunFacts& facts, std::vector<Finding>& out) {
  bool said_scale = false, said_repeat = false;
  const BatchFact* previous = nullptr;
  for (const BatchFact& b : facts.batches()) {
    for (size_t i = 0; i < b.parts.size() && !said_scale; ++i) {
      const TensorFact* t = facts.tensor(static_cast<int64_t>(b.parts[i]));
      if (!t || !t->floating() || !t->stats.present || t->stats.count < kMinElements) continue;
      const Stats& s = t->stats;
      if (s.finite == 0 || (std::fabs(s.mean) <= kMean && s.std <= kStd)) continue;
      said_scale = true;
      Finding f = finding("unnormalized_inputs", Severity::Warning,
                          "batch part " + std::to_string(i) + " at step " + std::to_string(b.step) +
                              " has mean " + num(s.mean) + " and standard deviation " + num(s.std) + " (values " +
                              num(s.min) + " to " + num(s.max) +
                              "), far from normalized: scale it (e.g. to mean 0, std 1 per channel) before the "
                              "model sees it.",
                          b.step, b.event);
      f.evidence = {{"mean", s.mean}, {"std", s.std}, {"min", s.min}, {"max", s.max}, {"part", double(i)}};
      f.where.subject = Subject::Batch, f.where.phase = Phase::Data, f.where.role = Role::Batch;
      out.push_back(std::move(f));
    }
    if (previous && !said_repeat && int64_t(previous->step) + 1 == b.step && !b.parts.empty() &&
        b.parts.size() == previous->parts.size()) {
      bool all_same = true;
      for (size_t i = 0; i < b.parts.size() && all_same; ++i) {
        const TensorFact* x = facts.tensor(static_cast<int64_t>(b.parts[i]));
        const TensorFact* y = facts.tensor(static_cast<int64_t>(previous->parts[i]));
        all_same = x && y && same(x->stats, y->stats);
      }
      if (all_same) {
        said_repeat = true;
        Finding f = finding("repeated_batch", Severity::Warning,
                            "step " + std::to_string(b.step) + " trained on the same batch as step " +
                                std::to_string(previous->step) +
                                " (every part's statistics are identical): the data iterator is re-created or the "
                                "batch is reused.",
                            b.step, b.event);
        f.evidence = {{"step", double(b.step)}, {"previous_step", double(previous->step)}};
        f.where.subject = Subject::Batch, f.where.phase = Phase::Data, f.where.role = Role::Batch;
        out.push_back(std::move(f));
      }
    }
    previous = &b;
  }
}

}  // namespace tvis::analysis
