// class_names.cpp: class_names.h.
#include "tvis/viewer_model/class_names.h"

#include <set>

#include "tvis/viewer_model/call_tensors.h"
#include "tvis/viewer_model/losses.h"
#include "tvis/viewer_model/run_model.h"
#include "tvis/viewer_model/samples.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

namespace {

bool same_values(const schema::TensorRecord& a, const schema::TensorRecord& b) {
  if (!a.shape() || !b.shape() || a.shape()->size() != b.shape()->size() || !a.stats() || !b.stats()) return false;
  for (size_t i = 0; i < a.shape()->size(); ++i)
    if (a.shape()->Get(i) != b.shape()->Get(i)) return false;
  const schema::Stats& x = *a.stats();
  const schema::Stats& y = *b.stats();
  return x.mean() == y.mean() && x.l2() == y.l2() && x.min() == y.min() && x.max() == y.max() &&
         x.mean_abs() == y.mean_abs();
}

}  // namespace

void add_class_name(std::map<int64_t, std::string>& names, const schema::Sample* smp) {
  if (!smp || smp->label_index() < 0 || !smp->label() || smp->label()->size() == 0) return;
  const std::string label = smp->label()->str();
  if (label != std::to_string(smp->label_index())) names.emplace(smp->label_index(), label);
}

std::map<int64_t, std::string> class_names_at(RunModel& model, int step) {
  std::map<int64_t, std::string> out;
  model.samples().for_step(step, [&](const schema::Sample* smp) { add_class_name(out, smp); });
  return out;
}

std::map<int64_t, std::string> class_names_of_losses(RunModel& model, bool* complete) {
  std::map<int64_t, std::string> out;
  *complete = false;
  if (!model.losses().ready()) return out;
  std::set<int> steps;
  for (const LossEntry& e : model.losses().entries()) steps.insert(e.step);
  bool all_read = true;
  for (int step : steps)
    all_read = model.samples().for_step(step, [&](const schema::Sample* smp) { add_class_name(out, smp); }) && all_read;
  *complete = all_read;
  return out;
}

bool produced_logits(RunModel& model, uint64_t event, int step) {
  bool complete = true;
  const TensorRef output = call_tensor(model, event, false, &complete);
  if (!output) return false;
  for (const schema::LossRecord* rec : model.losses().all_at_step(step)) {
    if (rec->logits() < 0) continue;
    const TensorRef logits = model.tensors().by_id(model, static_cast<uint64_t>(rec->logits()), step, &complete);
    if (logits && same_values(*logits.record(), *output.record())) return true;
  }
  return false;
}

}  // namespace tvis::viewer
