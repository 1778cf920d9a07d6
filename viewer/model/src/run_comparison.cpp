#include "tvis/viewer_model/run_comparison.h"

#include <cmath>
#include <set>

#include "tvis/viewer_model/call_tensors.h"
#include "tvis/viewer_model/param_update.h"
#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

namespace an = tvis::analysis;

namespace {

constexpr const char* kShowNames[] = {"activation", "gradient", "weight", "grad", "update"};

// Module names in call order (each once), and parameter names in record order.
std::vector<std::string> modules_of(const an::RunFacts& f) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const an::EventFact& e : f.events())
    if (e.kind == an::EventKind::ModuleCall && !e.name.empty() && seen.insert(e.name).second) out.push_back(e.name);
  return out;
}

std::vector<std::string> params_of(const an::RunFacts& f) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const an::StepFact& s : f.steps())
    for (const an::ParamFact& p : s.params)
      if (seen.insert(p.name).second) out.push_back(p.name);
  return out;
}

// The names of `xs` that `ys` lacks.
std::vector<std::string> missing_from(const std::vector<std::string>& xs, const std::vector<std::string>& ys) {
  const std::set<std::string> have(ys.begin(), ys.end());
  std::vector<std::string> out;
  for (const std::string& x : xs)
    if (!have.count(x)) out.push_back(x);
  return out;
}

// "fc3, fc4 (+2 more)".
std::string some_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 3) out += " (+" + std::to_string(names.size() - 3) + " more)";
  return out;
}

// "runs differ in model: ..." for what only one run has, "" when both have the same.
std::string mismatch_of(const std::vector<std::string>& ma, const std::vector<std::string>& mb,
                        const std::vector<std::string>& pa, const std::vector<std::string>& pb) {
  std::vector<std::string> parts;
  const auto add = [&](const std::vector<std::string>& only, const char* what) {
    if (!only.empty()) parts.push_back(what + some_names(only));
  };
  add(missing_from(ma, mb), "modules only in A: ");
  add(missing_from(mb, ma), "modules only in B: ");
  add(missing_from(pa, pb), "parameters only in A: ");
  add(missing_from(pb, pa), "parameters only in B: ");
  if (parts.empty()) return "";
  std::string out = "runs differ in model: ";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out;
}

std::vector<std::string> in_both(const std::vector<std::string>& xs, const std::vector<std::string>& ys) {
  const std::set<std::string> have(ys.begin(), ys.end());
  std::vector<std::string> out;
  for (const std::string& x : xs)
    if (have.count(x)) out.push_back(x);
  return out;
}

// The first call of `module` at `step` (lowest id), or nullptr; *complete
// turns false while an Events chunk of the step is read.
const schema::Event* first_call(RunModel& m, int step, const std::string& module, bool* complete) {
  const schema::Event* best = nullptr;
  const bool all = m.for_step_events(step, [&](const schema::Event* e) {
    if (e->kind() != schema::EventKind::ModuleCall || !e->name() || e->name()->str() != module) return;
    if (!best || e->id() < best->id()) best = e;
  });
  if (!all) *complete = false;
  return best;
}

// One run's tensor at `p` (never null: `loading` or `error` say why there are no values).
std::shared_ptr<const DecodedTensor> tensor_at(RunModel& m, const ComparePosition& p) {
  const auto failed = [](std::string why) {
    auto d = std::make_shared<DecodedTensor>();
    d->loading = why.empty();
    d->error = std::move(why);
    return std::shared_ptr<const DecodedTensor>(d);
  };
  if (m.status() != RunStatus::Open) return failed(m.error().empty() ? "the run is not open" : m.error());
  const std::string at = " at step " + std::to_string(p.step);
  if (!shows_param(p.show)) {
    bool complete = true;
    const schema::Event* e = first_call(m, p.step, p.module, &complete);
    if (!e) return failed(complete ? "no call of " + p.module + at : "");
    TensorRef ref = call_tensor(m, *e, p.show == CompareShow::Gradient, &complete);
    if (!ref) return failed(complete ? std::string("no recorded ") + compare_show_name(p.show) + " of " + p.module + at : "");
    return m.values().get(*ref.record());
  }
  const std::optional<ParamTensors> t = m.optimizer_steps().param_tensors(p.step, p.param);
  if (!t) return failed(m.optimizer_steps().ready() ? "no record of " + p.param + at : "");
  if (p.show == CompareShow::Update) return update_values(m, *t, p.step);
  const int64_t id = p.show == CompareShow::Weight ? t->weight : t->grad;
  if (id < 0) return failed(std::string("no recorded ") + compare_show_name(p.show) + " of " + p.param + at);
  return m.values().get(static_cast<uint64_t>(id), p.step);
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace

const char* compare_show_name(CompareShow show) { return kShowNames[static_cast<int>(show)]; }

bool compare_show_named(const std::string& name, CompareShow* out) {
  for (int i = 0; i < 5; ++i)
    if (name == kShowNames[i]) return *out = static_cast<CompareShow>(i), true;
  return false;
}

const ComparisonSummary& RunComparison::summary(RunModel& a, RunModel& b) {
  if (summary_.ready || a.status() != RunStatus::Open || b.status() != RunStatus::Open) return summary_;
  const an::RunFacts* fa = a.diagnosis().facts();
  const an::RunFacts* fb = b.diagnosis().facts();
  if (!fa || !fb) return summary_;
  const std::vector<std::string> ma = modules_of(*fa), mb = modules_of(*fb);
  const std::vector<std::string> pa = params_of(*fa), pb = params_of(*fb);
  summary_.mismatch = mismatch_of(ma, mb, pa, pb);
  summary_.modules = in_both(ma, mb);
  summary_.params = in_both(pa, pb);
  summary_.diff = an::diff_runs(*fa, *fb, an::DiffOptions{});
  summary_.ready = true;
  return summary_;
}

ComparedValues compare_values(RunModel& a, RunModel& b, const ComparePosition& p) {
  ComparedValues out;
  out.a = tensor_at(a, p);
  out.b = tensor_at(b, p);
  if (out.a->loading || out.b->loading) return out;
  out.loading = false;
  if (!out.a->error.empty() || !out.b->error.empty()) {
    out.error = !out.a->error.empty() ? "A: " + out.a->error : "B: " + out.b->error;
    return out;
  }
  const TensorValues& va = out.a->values;
  const TensorValues& vb = out.b->values;
  if (va.shape != vb.shape || va.values.size() != vb.values.size()) {
    out.error = "shapes differ: A " + shape_text(va.shape) + ", B " + shape_text(vb.shape);
    return out;
  }
  out.shape = va.shape;
  out.difference = values_difference({&va, &vb});
  out.abs_difference.resize(va.values.size());
  for (size_t i = 0; i < va.values.size(); ++i) {
    const double x = va.values[i], y = vb.values[i];
    const bool nx = std::isnan(x), ny = std::isnan(y);
    out.abs_difference[i] = nx && ny ? 0.0 : nx || ny ? INFINITY : x == y ? 0.0 : std::fabs(x - y);
  }
  return out;
}

}  // namespace tvis::viewer
