// dead_units: ReLU / ReLU6 layers where a share of the units output zero for
// every sample of the batch, at every recorded training step. The recorder
// reduces each such call's output of a training forward to its units
// (recorder/python/tvis/session/dead_units.py: ModuleCall detail dead_units,
// units, unit_samples; the unit is dim 1, the last dim of 3-D outputs).
//
// A layer is one module path and its k-th call in the step (a ReLU module
// reused after every layer is several layers). Its share is the smallest
// dead / units over its recorded steps: units that come back to life in some
// step do not count against it. Calls with fewer than kMinSamples elements
// per unit are not judged (with a batch of one, half the units of a healthy
// layer are zero). Reported once: the layer with the largest share at or
// above kDeadShare, and how many layers are at or above it; a warning when
// that share is kDeadWarn or more, a note below it. A freshly initialised
// layer fed inputs that barely vary across the batch (an autoencoder's
// decoder behind a small latent) can have 40 % of its units off for the
// whole batch in the first steps and recover; the mistakes this check is
// for (a large negative bias, a diverged update) switch off most of them.
#include <map>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr double kDeadShare = 0.25;
constexpr double kDeadWarn = 0.5;
constexpr double kMinSamples = 16;

struct Layer {
  std::string name;
  int first_step = -1;
  uint64_t first_event = 0;
  double share = 2;  // smallest over the steps; 2 until one is seen
  double dead = 0, units = 0;
};

}  // namespace

void check_dead_units(const RunFacts& facts, std::vector<Finding>& out) {
  std::map<std::string, Layer> layers;
  std::map<std::pair<int, std::string>, int> calls;  // (step, name) -> calls so far
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::ModuleCall || e.phase != Phase::Forward) continue;
    const double dead = count_of(e.detail->dead_units()), units = count_of(e.detail->units());
    const double samples = count_of(e.detail->unit_samples());
    if (dead < 0 || units <= 0 || dead > units || samples < kMinSamples) continue;
    const int k = calls[{e.step, e.name}]++;
    Layer& l = layers[e.name + "#" + std::to_string(k)];
    if (l.first_step < 0) l.name = k ? e.name + " (call " + std::to_string(k + 1) + ")" : e.name;
    if (l.first_step < 0) l.first_step = e.step, l.first_event = e.id;
    if (dead / units < l.share) l.share = dead / units, l.dead = dead, l.units = units;
  }
  const Layer* worst = nullptr;
  size_t affected = 0;
  for (const auto& [key, l] : layers) {
    if (l.share > 1 || l.share < kDeadShare) continue;
    ++affected;
    if (!worst || l.share > worst->share) worst = &l;
  }
  if (!worst) return;
  const bool most = worst->share >= kDeadWarn;
  Finding f = finding("dead_units", most ? Severity::Warning : Severity::Note,
                      "in every recorded step, at least " + num(worst->dead) + " of " + num(worst->units) +
                          " units (" + num(100 * worst->share) + "%) of " + worst->name +
                          " output zero for every sample of the batch" + (affected > 1 ? " (" + std::to_string(affected) + " layers have a quarter or more dead)" : "") +
                          (most ? ": they pass no gradient and stopped learning (a large negative bias, a too high "
                                  "learning rate, or inputs far from normalized)."
                                : ": they pass no gradient while it lasts (a layer fresh from its initialisation "
                                  "behind inputs that barely vary recovers; a large negative bias does not)."),
                      worst->first_step, worst->first_event);
  f.evidence = {{"share", worst->share}, {"dead", worst->dead}, {"units", worst->units},
                {"layers", double(affected)}, {"module", 0, worst->name}, {"warning_from_share", kDeadWarn}};
  f.where.subject = Subject::Call, f.where.phase = Phase::Forward, f.where.role = Role::Output;
  f.where.module = worst->name.substr(0, worst->name.find(" (call "));
  out.push_back(std::move(f));
}

}  // namespace tvis::analysis
