// not_optimized: parameters of the model that received a gradient but are in
// no param group of any optimizer (built from a subset of the parameters, or
// a layer added after the optimizer was created): their gradient is computed
// and thrown away. The recorder counts them when each optimizer step opens
// (recorder/python/tvis/session/unoptimized.py: OptimizerStep detail
// grads_unoptimized, grads_unoptimized_names). Reported once, at the first
// step where it happens.
#include <cstdlib>
#include <sstream>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

void check_unoptimized(const RunFacts& facts, std::vector<Finding>& out) {
  size_t steps = 0;
  const EventFact* first = nullptr;
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::OptimizerStep) continue;
    if (count_of(detail_of(e, "grads_unoptimized")) < 1) continue;
    ++steps;
    if (!first) first = &e;
  }
  if (!first) return;
  const double count = count_of(detail_of(*first, "grads_unoptimized"));
  const std::string* listed = detail_of(*first, "grads_unoptimized_names");
  std::vector<std::string> names = words(listed ? *listed : std::string());
  if (names.empty()) names.push_back("?");
  std::string shown = names_of(names, 5);
  if (count > double(names.size()))
    shown += " (" + num(count) + " in all)";
  Finding f = finding("not_optimized", Severity::Warning,
                      shown + (count == 1 ? " has" : " have") + " a gradient at step " + std::to_string(first->step) +
                          " but no optimizer holds " + (count == 1 ? "it" : "them") +
                          ": the backward computes " + (count == 1 ? "its gradient" : "their gradients") +
                          " and nothing applies it (the optimizer was built from some of the parameters, or before "
                          "a layer was added).",
                      first->step, first->id);
  f.evidence = {{"parameters", count}, {"steps", double(steps)}, {"parameter", 0, names.front()}};
  f.where.page = "Weights", f.where.phase = "optimizer", f.where.param = names.front();
  out.push_back(std::move(f));
}

}  // namespace tvis::analysis
