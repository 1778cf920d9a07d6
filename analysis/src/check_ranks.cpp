// ranks_diverge / duplicate_rank_data: what only the rank files of one
// data-parallel run read together show. Judged only when some rank recorded
// an AllReduce event (a DDP model: its replicas must stay equal).
//
// ranks_diverge: a parameter whose gradient at an optimizer step, or whose
//   weight before a step, differs between ranks. Replicas of a DDP model
//   start equal and their gradients are all-reduced, so both must agree to
//   the bit (their statistics are compared: count, NaN and Inf counts, min,
//   max, mean, l2, within kTolerance relative). Case "not_all_reduced" when,
//   on every rank, the gradient the optimizer used equals that rank's own
//   local gradient (the LocalGrad of the step's backward): the all-reduce did
//   not take effect for it (the model called without its DDP wrapper, or
//   parameters replaced after wrapping), or when neither rank recorded an
//   all-reduce in that step at all (every backward of the step bypassed the
//   wrapper); case "gradients_differ" otherwise
//   (a gradient changed on one rank after the all-reduce: clipping or scaling
//   on one rank); case "weights_differ" when the weights before a step
//   differ with no gradient difference seen first. The first step and
//   parameter are reported.
// ranks_diverge, case "step_counts_differ": every rank's recording ended
//   normally (complete, no exception) but they recorded different numbers of
//   steps: one rank trained on after another stopped (uneven data per rank,
//   a rank leaving its loop early), so from the shorter rank's last step on
//   the replicas' collectives no longer pair up. Judged only when no
//   parameter diverged first. The step is the first one the shorter rank
//   lacks; no parameter is named.
// ranks_missing (a note, judged when rank 0's file leads, as for a run folder):
//   ranks of the world size the rank files record that have no file among
//   those read, with the reasons the recordings give (notices
//   "rank_not_recorded": a rank the script started in a way tvis does not
//   record, recorder/python/tvis/session/child_ranks.py).
// duplicate_rank_data: every rank's batch had the same statistics at every
//   step compared: each rank trains on the same data (no DistributedSampler),
//   so the job does one rank's work N times.
#include <algorithm>
#include <cmath>
#include <map>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr double kTolerance = 1e-6;

bool same(double a, double b) { return a == b || std::fabs(a - b) <= kTolerance * std::max(std::fabs(a), std::fabs(b)); }

bool same_stats(const TensorFact* a, const TensorFact* b) {
  if (!a || !b || !a->stats.present || !b->stats.present) return true;  // nothing to compare: not a difference
  const Stats &x = a->stats, &y = b->stats;
  return a->shape == b->shape && x.count == y.count && x.nan == y.nan && x.inf == y.inf && same(x.min, y.min) &&
         same(x.max, y.max) && same(x.mean, y.mean) && same(x.l2, y.l2);
}

bool data_parallel(const RunFacts& f) {
  return std::any_of(f.events().begin(), f.events().end(), [](const EventFact& e) { return e.kind == EventKind::AllReduce; });
}

/// A rank's step records by (step, how many records of that step came before).
std::map<std::pair<int, int>, const StepFact*> steps_of(const RunFacts& f) {
  std::map<std::pair<int, int>, const StepFact*> out;
  std::map<int, int> seen;
  for (const StepFact& s : f.steps()) out[{s.step, seen[s.step]++}] = &s;
  return out;
}

/// The LocalGrad a rank recorded for `param` at `step` (the last one: the backward the all-reduce followed).
const TensorFact* local_grad(const RunFacts& f, int step, const std::string& param) {
  const TensorFact* found = nullptr;
  for (const TensorFact& t : f.tensors())
    if (t.role == Role::LocalGrad && t.step == step && t.name == param) found = &t;
  return found;
}

/// Whether `f` recorded an all-reduce in step `step` (a backward through the DDP wrapper).
bool all_reduced_at(const RunFacts& f, int step) {
  return std::any_of(f.events().begin(), f.events().end(),
                     [step](const EventFact& e) { return e.kind == EventKind::AllReduce && e.step == step; });
}

struct Divergence {
  std::string case_name, param;
  int step = -1;
  uint64_t event = 0;
  int rank_a = 0, rank_b = 0;
};

bool first_divergence(const std::vector<const RunFacts*>& ranks, Divergence* d) {
  const auto base = steps_of(*ranks[0]);
  std::vector<std::map<std::pair<int, int>, const StepFact*>> others;
  for (size_t r = 1; r < ranks.size(); ++r) others.push_back(steps_of(*ranks[r]));
  for (const auto& [key, s0] : base) {
    if (s0->skipped) continue;
    for (const ParamFact& p : s0->params)
      for (size_t r = 1; r < ranks.size(); ++r) {
        auto it = others[r - 1].find(key);
        if (it == others[r - 1].end() || it->second->skipped) continue;
        const ParamFact* q = nullptr;
        for (const ParamFact& x : it->second->params)
          if (x.name == p.name) q = &x;
        if (!q) continue;
        const RunFacts &a = *ranks[0], &b = *ranks[r];
        const TensorFact *wa = a.tensor(int64_t(p.weight)), *wb = b.tensor(int64_t(q->weight));
        if (wa && wb && wa->shape != wb->shape) continue;  // sharded, not replicated
        if (a.meta().is_sharded(p.name) || b.meta().is_sharded(q->name)) continue;  // each rank its own part
        *d = {"", p.name, key.first, s0->event, a.meta().rank, b.meta().rank};
        if (!same_stats(wa, wb)) return d->case_name = "weights_differ", true;
        if (same_stats(a.tensor(p.grad), b.tensor(q->grad))) continue;
        const TensorFact *la = local_grad(a, key.first, p.name), *lb = local_grad(b, key.first, p.name);
        const bool own = (la && lb && same_stats(a.tensor(p.grad), la) && same_stats(b.tensor(q->grad), lb)) ||
                         (!all_reduced_at(a, key.first) && !all_reduced_at(b, key.first));
        d->case_name = own ? "not_all_reduced" : "gradients_differ";
        return true;
      }
  }
  return false;
}

/// Steps whose top-level training call was not the DDP wrapper while others' was (rank 0).
std::vector<int> unwrapped_steps(const RunFacts& f) {
  std::map<int, std::string> top;
  for (const EventFact& e : f.events())
    if (e.kind == EventKind::ModuleCall && e.phase == Phase::Forward && e.detail->model_training())
      top.emplace(e.step, e.class_name);
  std::vector<int> out;
  bool wrapped = false;
  for (const auto& [step, cls] : top) wrapped = wrapped || cls == "DistributedDataParallel";
  if (wrapped)
    for (const auto& [step, cls] : top)
      if (cls != "DistributedDataParallel") out.push_back(step);
  return out;
}

void report_divergence(const std::vector<const RunFacts*>& ranks, const Divergence& d, std::vector<Finding>& out) {
  const std::string r = "ranks " + std::to_string(d.rank_a) + " and " + std::to_string(d.rank_b);
  const std::vector<int> unwrapped = unwrapped_steps(*ranks[0]);
  std::string why;
  if (d.case_name == "not_all_reduced")
    why = "the gradient the optimizer used on each rank is that rank's own local gradient: the all-reduce did not "
          "take effect for it (the model called without its DistributedDataParallel wrapper, or its parameters "
          "replaced after wrapping)";
  else if (d.case_name == "gradients_differ")
    why = "the gradients were changed on one rank after the all-reduce (gradient clipping or scaling on one rank "
          "only), or not all-reduced";
  else
    why = "the replicas no longer hold the same model (an update, a clip or a load that ran on one rank only)";
  std::string message = (d.case_name == "weights_differ" ? "the weight of " : "the gradient of ") + d.param +
                        " differs between " + r + " at step " + std::to_string(d.step) + ": " + why;
  if (!unwrapped.empty())
    message += "; at step " + std::to_string(unwrapped.front()) + " rank " + std::to_string(ranks[0]->meta().rank) +
               " called the model without its wrapper";
  message += ". The replicas now train different models.";
  Finding f = finding("ranks_diverge", Severity::Error, std::move(message), d.step, d.event);
  f.evidence = {{"case", 0, d.case_name}, {"parameter", 0, d.param}, {"rank_a", double(d.rank_a)},
                {"rank_b", double(d.rank_b)}, {"ranks", double(ranks.size())},
                {"unwrapped_steps", double(unwrapped.size())}};
  f.where.subject = Subject::Parameter, f.where.step = d.step, f.where.param = d.param;
  f.where.phase = d.case_name == "weights_differ" ? Phase::Optimizer : Phase::Backward;
  f.where.role = d.case_name == "weights_differ" ? Role::Weight : Role::Grad;
  out.push_back(std::move(f));
}

/// The ranks with the fewest and the most recorded steps, when every rank ended normally and they differ.
bool unequal_steps(const std::vector<const RunFacts*>& ranks, const RunFacts** fewest, const RunFacts** most) {
  for (const RunFacts* f : ranks)
    if (!f->meta().complete || !f->meta().exception.empty()) return false;
  auto by_steps = [](const RunFacts* a, const RunFacts* b) { return a->meta().steps_recorded < b->meta().steps_recorded; };
  *fewest = *std::min_element(ranks.begin(), ranks.end(), by_steps);
  *most = *std::max_element(ranks.begin(), ranks.end(), by_steps);
  return (*fewest)->meta().steps_recorded != (*most)->meta().steps_recorded;
}

void report_unequal_steps(const std::vector<const RunFacts*>& ranks, const RunFacts& fewest, const RunFacts& most,
                          std::vector<Finding>& out) {
  const int a = fewest.meta().steps_recorded, b = most.meta().steps_recorded;
  const std::string ra = std::to_string(fewest.meta().rank), rb = std::to_string(most.meta().rank);
  Finding f = finding("ranks_diverge", Severity::Error,
                      "rank " + ra + " recorded " + std::to_string(a) + " steps and rank " + rb + " recorded " +
                          std::to_string(b) + ", each ending normally: from step " + std::to_string(a) + " on, rank " +
                          rb + " trained while rank " + ra + " did not (uneven data per rank, or a loop left early "
                          "on one rank), so their all-reduces no longer pair up and the replicas drift or hang.",
                      a, 0);
  f.evidence = {{"case", 0, "step_counts_differ"}, {"rank_a", double(fewest.meta().rank)},
                {"rank_b", double(most.meta().rank)}, {"ranks", double(ranks.size())},
                {"steps_a", double(a)}, {"steps_b", double(b)}};
  f.where.subject = Subject::OptimizerStep, f.where.step = a, f.where.phase = Phase::Optimizer;
  out.push_back(std::move(f));
}

void check_duplicate_data(const std::vector<const RunFacts*>& ranks, std::vector<Finding>& out) {
  int compared = 0;
  const BatchFact* first = nullptr;
  for (const BatchFact& b0 : ranks[0]->batches()) {
    if (b0.parts.empty()) continue;
    const TensorFact* t0 = ranks[0]->tensor(int64_t(b0.parts[0]));
    if (!t0 || !t0->stats.present || t0->stats.count < 2) continue;
    for (size_t r = 1; r < ranks.size(); ++r) {
      const BatchFact* b = nullptr;
      for (const BatchFact& x : ranks[r]->batches())
        if (x.step == b0.step && !x.parts.empty() && !b) b = &x;
      if (!b) continue;
      const TensorFact* t = ranks[r]->tensor(int64_t(b->parts[0]));
      if (!t || !t->stats.present) continue;
      if (!same_stats(t0, t) || t0->stats.std == 0) return;  // a constant batch proves nothing
      ++compared;
      if (!first) first = &b0;
    }
  }
  if (!compared) return;
  Finding f = finding("duplicate_rank_data", Severity::Warning,
                      "every rank trained on the same batch at every step compared (" + std::to_string(compared) +
                          " comparisons over " + std::to_string(ranks.size()) +
                          " ranks): without a DistributedSampler each rank reads the whole dataset in the same "
                          "order, so the job does one rank's work " + std::to_string(ranks.size()) +
                          " times; give the DataLoader a DistributedSampler (and call set_epoch each epoch).",
                      first->step, first->event);
  f.evidence = {{"comparisons", double(compared)}, {"ranks", double(ranks.size())}};
  f.where.subject = Subject::Batch, f.where.phase = Phase::Data, f.where.role = Role::Batch;
  out.push_back(std::move(f));
}

void check_missing(const std::vector<const RunFacts*>& ranks, std::vector<Finding>& out) {
  int world = 0;
  std::vector<bool> present;
  std::string why;
  for (const RunFacts* f : ranks) world = std::max(world, f->meta().world_size);
  present.assign(size_t(std::max(world, 1)), false);
  for (const RunFacts* f : ranks) {
    if (f->meta().rank >= 0 && f->meta().rank < world) present[size_t(f->meta().rank)] = true;
    for (const NoticeFact& n : f->meta().notices)
      if (n.code == "rank_not_recorded") why += (why.empty() ? "" : "; ") + n.message;
  }
  std::string missing;
  int count = 0;
  for (int r = 0; r < world; ++r)
    if (!present[size_t(r)]) missing += (count++ ? ", " : "") + std::to_string(r);
  if (!count && why.empty()) return;
  std::string message = count ? "no recording of rank" + std::string(count > 1 ? "s " : " ") + missing + " of the world of " +
                                    std::to_string(world) + " was read"
                              : "the recording names ranks it could not record";
  message += why.empty() ? ": the cross-rank checks compared the ranks there are." : " (" + why + ").";
  Finding f = finding("ranks_missing", Severity::Note, std::move(message), 0, 0);
  f.evidence = {{"missing", double(count)}, {"world_size", double(world)}, {"ranks", double(ranks.size())}};
  out.push_back(std::move(f));
}

}  // namespace

void check_ranks(const std::vector<const RunFacts*>& ranks, std::vector<Finding>& out) {
  if (!ranks.empty() && ranks.front()->meta().rank == 0) check_missing(ranks, out);  // a rank<N>.tvis alone: not
  if (ranks.size() < 2 || !std::any_of(ranks.begin(), ranks.end(), [](const RunFacts* f) { return data_parallel(*f); }))
    return;
  Divergence d;
  const RunFacts *fewest = nullptr, *most = nullptr;
  if (first_divergence(ranks, &d))
    report_divergence(ranks, d, out);
  else if (unequal_steps(ranks, &fewest, &most))
    report_unequal_steps(ranks, *fewest, *most, out);
  check_duplicate_data(ranks, out);
}

}  // namespace tvis::analysis
