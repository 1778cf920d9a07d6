#include "tvis/analysis/run_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "call_order.h"

namespace tvis::analysis {

namespace {

using EventKey = std::tuple<int, int, int, std::string, int>;  // step, phase, kind, name, occurrence
using TensorKey = std::tuple<int, int, int, std::string>;      // role, slot, sample, name

// What a differing tensor is, in `tvis diff --json`'s words.
const char* what_of(Role r, EventKind k) {
  switch (r) {
    case Role::Weight: return "weight";
    case Role::Update: return "update";
    case Role::Grad: case Role::GradOutput: case Role::GradInput: case Role::LocalGrad: return "grad";
    case Role::Batch: case Role::Target: case Role::Input: return "input";
    default: return k == EventKind::LossCall ? "loss" : "output";
  }
}

bool compared_kind(EventKind k) {
  return k == EventKind::ModuleCall || k == EventKind::FunctionCall || k == EventKind::LossCall ||
         k == EventKind::DataFetch || k == EventKind::OptimizerStep || k == EventKind::BackwardCall;
}

std::map<EventKey, const EventFact*> keyed_events(const RunFacts& f) {
  std::map<EventKey, const EventFact*> out;
  std::map<std::tuple<int, int, int, std::string>, int> seen;
  for (const EventFact& e : f.events()) {
    if (!compared_kind(e.kind)) continue;
    const auto base = std::make_tuple(e.step, int(e.phase), int(e.kind), e.name);
    out.emplace(std::tuple_cat(base, std::make_tuple(seen[base]++)), &e);
  }
  return out;
}

std::map<int64_t, std::map<TensorKey, const TensorFact*>> tensors_by_event(const RunFacts& f) {
  std::map<int64_t, std::map<TensorKey, const TensorFact*>> out;
  for (const TensorFact& t : f.tensors())
    if (t.event >= 0 && t.role != Role::Weight && t.role != Role::Grad && t.role != Role::Update)
      out[t.event].emplace(TensorKey{int(t.role), t.slot, t.sample, t.name}, &t);
  return out;
}

// The statistic of a and b that differs most beyond the tolerance, or false.
bool differs(const TensorFact& a, const TensorFact& b, const DiffOptions& o, TensorDelta* d) {
  if (a.shape != b.shape) {
    d->statistic = "shape", d->a = double(a.shape.size()), d->b = double(b.shape.size()), d->delta = INFINITY;
    return true;
  }
  if (!a.stats.present || !b.stats.present) return false;
  const std::pair<const char*, std::pair<double, double>> stats[] = {
      {"count", {double(a.stats.count), double(b.stats.count)}}, {"nan", {double(a.stats.nan), double(b.stats.nan)}},
      {"inf", {double(a.stats.inf), double(b.stats.inf)}},       {"min", {a.stats.min, b.stats.min}},
      {"max", {a.stats.max, b.stats.max}},                       {"mean", {a.stats.mean, b.stats.mean}},
      {"std", {a.stats.std, b.stats.std}},                       {"mean_abs", {a.stats.mean_abs, b.stats.mean_abs}},
      {"l2", {a.stats.l2, b.stats.l2}}};
  bool any = false;
  for (const auto& [name, v] : stats) {
    const double x = v.first, y = v.second;
    if (x == y || (std::isnan(x) && std::isnan(y))) continue;
    const double gap = std::fabs(x - y);
    if (!(gap > o.atol + o.rtol * std::fabs(y)) && !std::isnan(gap)) continue;
    const double size = std::isnan(gap) ? INFINITY : gap / std::max(1.0, std::fabs(y));
    if (!any || size > d->delta) d->statistic = name, d->a = x, d->b = y, d->delta = size;
    any = true;
  }
  return any;
}

void note(RunDiff& r, const RunFacts& fa, const TensorFact& ta, TensorDelta d,
          std::map<std::tuple<int, std::string>, TensorDelta>& per_layer, std::tuple<int, int, int64_t>& first_key) {
  r.tensors_differing += 1;
  const auto key = call_order(fa, ta);
  if (!r.has_first || key < first_key) r.first = d, r.has_first = true, first_key = key;
  auto& row = per_layer[{d.step, d.module.empty() ? d.name : d.module}];
  if (row.role.empty() || d.delta > row.delta) row = d;
}

}  // namespace

RunDiff diff_runs(const RunFacts& a, const RunFacts& b, const DiffOptions& o, size_t max_rows) {
  RunDiff r;
  r.steps_a = a.steps_recorded(), r.steps_b = b.steps_recorded();
  const auto ea = keyed_events(a), eb = keyed_events(b);
  const auto ta = tensors_by_event(a), tb = tensors_by_event(b);
  std::map<std::tuple<int, std::string>, TensorDelta> per_layer;
  std::tuple<int, int, int64_t> first_key{};
  for (const auto& [key, ev] : ea) {
    auto other = eb.find(key);
    if (other == eb.end()) {
      r.events_only_a += 1;
      continue;
    }
    r.events_matched += 1;
    auto xs = ta.find(int64_t(ev->id));
    auto ys = tb.find(int64_t(other->second->id));
    if (xs == ta.end() || ys == tb.end()) continue;
    for (const auto& [tkey, x] : xs->second) {
      auto y = ys->second.find(tkey);
      if (y == ys->second.end()) continue;
      r.tensors_compared += 1;
      TensorDelta d;
      if (!differs(*x, *y->second, o, &d)) continue;
      d.step = ev->step, d.phase = x->role == Role::GradOutput || x->role == Role::GradInput ? "backward" : phase_name(ev->phase);
      d.module = ev->name, d.role = role_name(x->role), d.name = x->name;
      d.event = int64_t(ev->id), d.what = what_of(x->role, ev->kind);
      d.where.subject = Subject::Call, d.where.step = ev->step, d.where.module = ev->name, d.where.role = x->role;
      d.where.phase = x->role == Role::GradOutput || x->role == Role::GradInput ? Phase::Backward : ev->phase;
      note(r, a, *x, d, per_layer, first_key);
    }
  }
  for (const auto& [key, ev] : eb)
    if (!ea.count(key)) r.events_only_b += 1;
  // parameters, step by step: the weight as the step began, its gradient, its update
  std::map<std::pair<int, std::string>, const ParamFact*> pb;
  for (const StepFact& s : b.steps())
    for (const ParamFact& p : s.params) pb[{s.step, p.name}] = &p;
  for (const StepFact& s : a.steps())
    for (const ParamFact& p : s.params) {
      auto q = pb.find({s.step, p.name});
      if (q == pb.end()) continue;
      const std::pair<int64_t, int64_t> pairs[] = {
          {int64_t(p.weight), int64_t(q->second->weight)}, {p.grad, q->second->grad}, {p.update, q->second->update}};
      for (const auto& [ia, ib] : pairs) {
        const TensorFact* x = a.tensor(ia);
        const TensorFact* y = b.tensor(ib);
        if (!x || !y) continue;
        r.tensors_compared += 1;
        TensorDelta d;
        if (!differs(*x, *y, o, &d)) continue;
        d.step = s.step, d.phase = x->role == Role::Weight ? "" : "optimizer", d.role = role_name(x->role);
        d.name = p.name;
        d.event = int64_t(s.event), d.what = what_of(x->role, EventKind::OptimizerStep);
        d.where.subject = Subject::Parameter, d.where.step = s.step, d.where.param = p.name, d.where.role = x->role;
        note(r, a, *x, d, per_layer, first_key);
      }
    }
  for (auto& [key, d] : per_layer) r.largest.push_back(d);
  std::stable_sort(r.largest.begin(), r.largest.end(),
                   [](const TensorDelta& x, const TensorDelta& y) { return x.delta > y.delta; });
  if (r.largest.size() > max_rows) r.largest.resize(max_rows);
  return r;
}

}  // namespace tvis::analysis
