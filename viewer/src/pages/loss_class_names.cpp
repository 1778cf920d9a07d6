// The classes' names on the Loss page (the sample list and the confusion
// matrix): a class has a name where a followed sample of that class carries
// its label (Sample.label with label_index) other than the index itself
// (the recorder's label without a dataset's `classes`), else it is its index.
#include <set>

#include "loss_state.h"

namespace tvis::viewer {

namespace {

template <typename Map>
void add_name(Map& out, const schema::Sample* smp) {
  if (!smp || smp->label_index() < 0 || !smp->label() || smp->label()->size() == 0) return;
  const std::string label = smp->label()->str();
  if (label != std::to_string(smp->label_index())) out.emplace(smp->label_index(), label);
}

}  // namespace

std::map<int64_t, std::string> class_names(AppState& s, int step) {
  std::map<int64_t, std::string> out;
  s.model.samples().for_step(step, [&](const schema::Sample* smp) { add_name(out, smp); });
  return out;
}

const std::map<int64_t, std::string>& class_names_recorded(AppState& s, LossState& l) {
  if (l.recorded_names_complete || !s.model.losses().ready()) return l.recorded_names;
  std::set<int> steps;
  for (const schema::LossRecord* rec : s.model.losses().all()) steps.insert(rec->step());
  bool complete = true;
  for (int step : steps)
    complete = s.model.samples().for_step(step, [&](const schema::Sample* smp) { add_name(l.recorded_names, smp); }) &&
               complete;
  l.recorded_names_complete = complete;
  return l.recorded_names;
}

std::string class_label(const std::map<int64_t, std::string>& names, int64_t c) {
  auto it = names.find(c);
  return it == names.end() ? std::to_string(c) : std::to_string(c) + " " + it->second;
}

}  // namespace tvis::viewer
