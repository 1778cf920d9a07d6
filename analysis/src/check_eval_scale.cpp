// eval_output_scale: an evaluation whose output is orders of magnitude off
// the training forward's output of the same model at the same step.
//
// The top-level calls (the ones the recorder marks with EventDetail.model_training) of
// one step are compared by model (model_key: class and row shapes): the evaluation's output size (root mean
// square of its first output) against the training forward's. Dropout scales
// by at most 1/(1 - p), BatchNorm's running statistics by the data's scale;
// more than kDecades decades apart means state a training forward sets up and
// the evaluation lacks: spectral_norm's power iteration (its u and v are only
// updated by training forwards, so an evaluation before the first one
// divides by a meaningless sigma), lazily initialised modules, or running
// statistics never updated. Reported once, at the first step where it happens.
#include <cmath>
#include <map>
#include <string>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

constexpr double kDecades = 3.0;

/// RMS of the call's first recorded output; NaN when not recorded or not finite.
double output_rms(const RunFacts& facts, const EventFact& e) {
  for (uint64_t id : e.outputs) {
    const TensorFact* t = facts.tensor(static_cast<int64_t>(id));
    if (!t || !t->stats.present || !t->floating() || t->stats.count == 0 || t->stats.non_finite()) continue;
    return t->stats.l2 / std::sqrt(double(t->stats.count));
  }
  return std::nan("");
}

std::string dims_after_first(const RunFacts& facts, const std::vector<uint64_t>& ids) {
  const TensorFact* t = ids.empty() ? nullptr : facts.tensor(static_cast<int64_t>(ids.front()));
  if (!t) return "?";
  std::string s;
  for (size_t i = 1; i < t->shape.size(); ++i) s += std::to_string(t->shape[i]) + ",";
  return s;
}

/// Which model a top-level call is: its class and the shapes of its first
/// input and output past the batch dimension (an evaluation may see another
/// batch size, and the recorder may name the same model differently outside
/// the training step, but a model keeps its class and its row shapes).
std::string model_key(const RunFacts& facts, const EventFact& e) {
  return e.class_name + " " + dims_after_first(facts, e.inputs) + " -> " + dims_after_first(facts, e.outputs);
}

}  // namespace

void check_eval_scale(const RunFacts& facts, std::vector<Finding>& out) {
  std::map<std::pair<int, std::string>, const EventFact*> trained, evaluated;  // first top-level call per step
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::ModuleCall || !e.detail->model_training()) continue;
    if (e.phase == Phase::Forward) trained.emplace(std::make_pair(e.step, model_key(facts, e)), &e);
    if (e.phase == Phase::Evaluation) evaluated.emplace(std::make_pair(e.step, model_key(facts, e)), &e);
  }
  for (const auto& [key, ev] : evaluated) {
    auto tr = trained.find(key);
    if (tr == trained.end()) continue;
    const double a = output_rms(facts, *ev), b = output_rms(facts, *tr->second);
    if (!(a > 0) || !(b > 0) || std::fabs(std::log10(a / b)) < kDecades) continue;
    Finding f = finding("eval_output_scale", Severity::Warning,
                        "at step " + std::to_string(key.first) + " an evaluation of " + who(*ev) +
                            " gave outputs of size " + num(a) + " where its training forward gave " + num(b) +
                            " (" + num(a / b) + "x, more than " + num(std::pow(10, kDecades)) +
                            "x apart): the evaluation lacks state a training forward sets up, such as spectral_norm's "
                            "power iteration before the first training forward, a lazy module, or BatchNorm running "
                            "statistics never updated.",
                        key.first, ev->id);
    f.evidence = {{"eval_rms", a}, {"train_rms", b}, {"ratio", a / b}, {"expected_max_ratio", std::pow(10, kDecades)},
                  {"module", 0, ev->name}};
    f.where.subject = Subject::Call, f.where.phase = Phase::Evaluation, f.where.module = ev->name;
    f.where.role = Role::Output;
    out.push_back(std::move(f));
    return;
  }
}

}  // namespace tvis::analysis
