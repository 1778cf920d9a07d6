#include "tvis/viewer_model/step_stops.h"

#include <algorithm>
#include <unordered_map>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

namespace {

bool known_phase(schema::Phase p) {
  return p == schema::Phase::Data || p == schema::Phase::Forward || p == schema::Phase::Loss ||
         p == schema::Phase::Backward || p == schema::Phase::Optimizer;
}

bool is_marker(schema::EventKind k) { return k == schema::EventKind::PhaseBegin || k == schema::EventKind::PhaseEnd; }

Stop stop_of(const schema::Event& e, schema::Phase phase, int depth, bool leaf) {
  Stop s;
  s.event = e.id();
  s.phase = phase;
  s.kind = e.kind();
  s.name = e.name() ? e.name()->str() : std::string();
  s.cls = e.class_name() ? e.class_name()->str() : std::string();
  s.depth = depth;
  s.leaf = leaf;
  const bool in_model = phase == schema::Phase::Forward || phase == schema::Phase::Backward;
  s.layer = !in_model || (e.kind() == schema::EventKind::ModuleCall && leaf);
  return s;
}

}  // namespace

int StepPlan::first_of(schema::Phase phase) const {
  auto it = phase_first.find(phase);
  return it == phase_first.end() ? -1 : static_cast<int>(it->second);
}

int StepPlan::find(uint64_t event, schema::Phase phase) const {
  for (size_t i = 0; i < stops.size(); ++i)
    if (stops[i].event == event && stops[i].phase == phase) return static_cast<int>(i);
  return -1;
}

int StepPlan::find_name(const std::string& name, schema::Phase phase) const {
  for (size_t i = 0; i < stops.size(); ++i)
    if (stops[i].phase == phase && stops[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

// The backward stops in the order the gradients arrived, as recorded: a
// GradOutput's tensor id is given when its hook runs, so a call's first
// grad_outputs id orders it. A call that recorded no gradient stays right
// after the call before it in `order` (the tree's reverse post-order); ties
// (one gradient tensor shared by a container and its last part) keep that
// order too, so a run without grad_outputs (a synthetic one) plays the tree's.
void in_arrival_order(const std::vector<const schema::Event*>& events, std::vector<size_t>* order) {
  std::vector<std::pair<uint64_t, size_t>> keyed;  // (arrival key, index into events)
  uint64_t key = 0;
  for (size_t i : *order) {
    const auto* grads = events[i]->grad_outputs();
    if (grads && grads->size() > 0) key = grads->Get(0);
    keyed.push_back({key, i});
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t k = 0; k < keyed.size(); ++k) (*order)[k] = keyed[k].second;
}

}  // namespace

StepPlan build_step_plan(int step, const std::vector<const schema::Event*>& unsorted) {
  std::vector<const schema::Event*> events = unsorted;
  std::sort(events.begin(), events.end(), [](auto* a, auto* b) { return a->id() < b->id(); });
  events.erase(std::unique(events.begin(), events.end(), [](auto* a, auto* b) { return a->id() == b->id(); }),
               events.end());
  std::unordered_map<uint64_t, size_t> at;  // id -> index in events
  for (size_t i = 0; i < events.size(); ++i) at[events[i]->id()] = i;

  // Depth and leaf-ness from the parent chain inside the step.
  std::vector<int> depth(events.size(), 0);
  std::vector<bool> leaf(events.size(), true);
  for (size_t i = 0; i < events.size(); ++i) {
    const int64_t p = events[i]->parent();
    auto it = p >= 0 ? at.find(static_cast<uint64_t>(p)) : at.end();
    if (it != at.end()) depth[i] = depth[it->second] + 1;  // parents precede children (pre-order ids)
    if (events[i]->kind() != schema::EventKind::ModuleCall) continue;
    for (int64_t q = p; q >= 0;) {
      auto up = at.find(static_cast<uint64_t>(q));
      if (up == at.end()) break;
      if (!leaf[up->second] && events[up->second]->kind() == schema::EventKind::ModuleCall) break;
      leaf[up->second] = false;
      q = events[up->second]->parent();
    }
  }

  StepPlan plan;
  plan.step = step;
  auto add_phase = [&](schema::Phase phase) {
    for (size_t i = 0; i < events.size(); ++i) {
      const schema::Event& e = *events[i];
      if (e.phase() != phase || is_marker(e.kind())) continue;
      if (phase == schema::Phase::Backward && e.kind() == schema::EventKind::ModuleCall) continue;  // forward calls re-played below
      plan.stops.push_back(stop_of(e, phase, depth[i], leaf[i]));
    }
  };
  auto mark = [&](schema::Phase phase, size_t from) {
    if (plan.stops.size() > from) plan.phase_first[phase] = from;
  };

  for (schema::Phase phase : {schema::Phase::Data, schema::Phase::Forward, schema::Phase::Loss}) {
    const size_t from = plan.stops.size();
    add_phase(phase);
    mark(phase, from);
  }

  // Backward: the backward() call, then the forward module calls in the
  // order their gradients arrived (in_arrival_order).
  {
    const size_t from = plan.stops.size();
    add_phase(schema::Phase::Backward);
    std::vector<std::vector<size_t>> children(events.size());
    std::vector<size_t> roots;
    for (size_t i = 0; i < events.size(); ++i) {
      const schema::Event& e = *events[i];
      if (e.phase() != schema::Phase::Forward || e.kind() != schema::EventKind::ModuleCall) continue;
      // nearest enclosing forward module call
      int64_t q = e.parent();
      size_t owner = SIZE_MAX;
      while (q >= 0) {
        auto up = at.find(static_cast<uint64_t>(q));
        if (up == at.end()) break;
        const schema::Event& pe = *events[up->second];
        if (pe.phase() == schema::Phase::Forward && pe.kind() == schema::EventKind::ModuleCall) {
          owner = up->second;
          break;
        }
        q = pe.parent();
      }
      (owner == SIZE_MAX ? roots : children[owner]).push_back(i);
    }
    std::vector<size_t> order;  // reverse post-order of the forward module tree
    std::vector<size_t> todo;   // a stack: the last root (child) is visited first
    for (size_t r : roots) todo.push_back(r);
    while (!todo.empty()) {
      const size_t i = todo.back();
      todo.pop_back();
      order.push_back(i);
      for (size_t c : children[i]) todo.push_back(c);
    }
    in_arrival_order(events, &order);
    for (size_t i : order) plan.stops.push_back(stop_of(*events[i], schema::Phase::Backward, depth[i], leaf[i]));
    mark(schema::Phase::Backward, from);
  }
  {
    const size_t from = plan.stops.size();
    add_phase(schema::Phase::Optimizer);
    mark(schema::Phase::Optimizer, from);
  }
  // Outside the model (data, loss, optimizer) the "layer" size skips the
  // project's own function calls when the phase has other stops (the fetch,
  // dataset items, transforms, the loss call, optimizer.step()).
  for (schema::Phase phase : {schema::Phase::Data, schema::Phase::Loss, schema::Phase::Optimizer}) {
    bool other = false;
    for (const Stop& st : plan.stops)
      if (st.phase == phase && st.kind != schema::EventKind::FunctionCall) other = true;
    if (other)
      for (Stop& st : plan.stops)
        if (st.phase == phase && st.kind == schema::EventKind::FunctionCall) st.layer = false;
  }
  for (const auto* e : events)
    if (!known_phase(e->phase()) && !is_marker(e->kind())) ++plan.other_events;
  return plan;
}

StepBatch step_batch(RunModel& model, const StepPlan& plan) {
  StepBatch b;
  CallRef model_call;
  for (const Stop& st : plan.stops) {
    if (!b.fetch && st.phase == schema::Phase::Data && st.kind == schema::EventKind::DataFetch) b.fetch = model.call(st.event);
    if (!model_call && st.phase == schema::Phase::Forward && st.kind == schema::EventKind::ModuleCall)
      model_call = model.call(st.event);
  }
  if (b.fetch && !(b.parts = b.fetch.outputs()).empty()) b.holder = b.fetch;
  else if (model_call && !(b.parts = model_call.inputs()).empty()) b.holder = model_call;
  else b.parts.clear();
  return b;
}

const StepPlan* StepStops::plan(int step) {
  auto it = plans_.find(step);
  if (it != plans_.end()) return it->second.get();
  std::vector<const schema::Event*> events;
  const bool complete = model_.for_step_events(step, [&](const schema::Event* e) { events.push_back(e); });
  if (!complete) return nullptr;
  auto plan = std::make_unique<StepPlan>(build_step_plan(step, events));
  for (const EventSpan& span : model_.event_spans())
    if (span.step_first < 0 || (step >= span.step_first && step <= span.step_last))
      if (model_.cache().failure(span.ordinal)) plan->unreadable = true;
  const StepPlan* out = plan.get();
  plans_[step] = std::move(plan);
  return out;
}

void StepStops::prefetch(int step) {
  if (plans_.count(step)) return;
  model_.for_step_events(step, [](const schema::Event*) {});
}

schema::Phase phase_from_label(const std::string& label) {
  for (schema::Phase p : {schema::Phase::Data, schema::Phase::Forward, schema::Phase::Loss, schema::Phase::Backward,
                          schema::Phase::Optimizer})
    if (label == phase_label(p)) return p;
  return schema::Phase::None;
}

}  // namespace tvis::viewer
