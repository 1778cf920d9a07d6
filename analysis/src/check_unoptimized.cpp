// not_optimized: parameters of the model that received a gradient but are in
// no param group of any optimizer (built from a subset of the parameters, or
// a layer added after the optimizer was created): their gradient is computed
// and thrown away. The recorder counts them when each optimizer step opens
// (recorder/python/tvis/session/unoptimized.py: OptimizerStep detail
// grads_unoptimized, grads_unoptimized_names). Reported once, at the first
// step where it happens: a warning when some of them run after (downstream
// of) what the optimizer holds, as a head added after the optimizer was
// built does; a note when all of them run before everything it holds (a
// backbone left trainable while only the head is optimized: a fine-tune's
// usual choice, whose only cost is the backward through the backbone).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

/// Whether every one of `names` belongs to a module whose first forward call
/// of the step comes before the first call of every module whose parameters
/// the step's optimizer holds (all known; false when any is not).
bool all_upstream(const RunFacts& facts, const EventFact& opt_event, const std::vector<std::string>& names) {
  std::map<std::string, uint64_t> first_call;
  for (const EventFact& e : facts.events())
    if (e.kind == EventKind::ModuleCall && e.phase == Phase::Forward && e.step == opt_event.step)
      first_call.emplace(e.name, e.id);
  const StepFact* step = nullptr;
  for (const StepFact& s : facts.steps())
    if (s.event == opt_event.id) step = &s;
  if (!step || step->params.empty()) return false;
  uint64_t first_held = UINT64_MAX, last_unheld = 0;
  for (const ParamFact& p : step->params) {
    auto it = first_call.find(module_of(p.name));
    if (it == first_call.end()) return false;
    first_held = std::min(first_held, it->second);
  }
  for (const std::string& n : names) {
    auto it = first_call.find(module_of(n));
    if (it == first_call.end()) return false;
    last_unheld = std::max(last_unheld, it->second);
  }
  return last_unheld < first_held;
}

}  // namespace

void check_unoptimized(const RunFacts& facts, std::vector<Finding>& out) {
  size_t steps = 0;
  const EventFact* first = nullptr;
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::OptimizerStep) continue;
    if (count_of(e.detail->grads_unoptimized()) < 1) continue;
    ++steps;
    if (!first) first = &e;
  }
  if (!first) return;
  const double count = count_of(first->detail->grads_unoptimized());
  std::vector<std::string> names = words_of(first->detail->grads_unoptimized_names());
  if (names.empty()) names.push_back("?");
  std::string shown = names_of(names, 5);
  if (count > double(names.size()))
    shown += " (" + num(count) + " in all)";
  // A cut list is judged by its first names and its last (parameters are
  // listed in the model's order).
  std::vector<std::string> judged = names;
  if (const flatbuffers::String* last = first->detail->grads_unoptimized_last()) judged.push_back(last->str());
  const bool upstream = (count <= double(names.size()) || judged.size() > names.size()) &&
                        all_upstream(facts, *first, judged);
  Finding f = finding("not_optimized", upstream ? Severity::Note : Severity::Warning,
                      shown + (count == 1 ? " has" : " have") + " a gradient at step " + std::to_string(first->step) +
                          " but no optimizer holds " + (count == 1 ? "it" : "them") +
                          ": the backward computes " + (count == 1 ? "its gradient" : "their gradients") +
                          " and nothing applies it " +
                          (upstream ? std::string("(all of them run before what the optimizer holds: a backbone left "
                                                  "trainable while the head is fine-tuned? set requires_grad_(False) "
                                                  "on it to skip that backward work).")
                                    : std::string("(the optimizer was built from some of the parameters, or before "
                                                  "a layer was added).")),
                      first->step, first->id);
  f.evidence = {{"parameters", count}, {"steps", double(steps)}, {"parameter", 0, names.front()},
                {"upstream_of_optimized", upstream ? 1.0 : 0.0}};
  f.where.subject = Subject::Parameter, f.where.phase = Phase::Optimizer, f.where.param = names.front();
  f.where.role = Role::Grad;
  out.push_back(std::move(f));
}

}  // namespace tvis::analysis
