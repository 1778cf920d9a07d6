// The classes' names on the Loss page (the sample list and the confusion
// matrix): a class has a name where a followed sample of that class carries
// its label (Sample.label with label_index) other than the index itself
// (the recorder's label without a dataset's `classes`), else it is its index.
#include "loss_state.h"
#include "tvis/viewer_model/class_names.h"

namespace tvis::viewer {

std::map<int64_t, std::string> class_names(AppState& s, int step) { return class_names_at(s.model, step); }

const std::map<int64_t, std::string>& class_names_recorded(AppState& s, LossState& l) {
  if (l.recorded_names_complete) return l.recorded_names;
  bool complete = false;
  std::map<int64_t, std::string> names = class_names_of_losses(s.model, &complete);
  for (auto& [index, name] : names) l.recorded_names.emplace(index, std::move(name));
  l.recorded_names_complete = complete;
  return l.recorded_names;
}

std::string class_label(const std::map<int64_t, std::string>& names, int64_t c) {
  auto it = names.find(c);
  return it == names.end() ? std::to_string(c) : std::to_string(c) + " " + it->second;
}

}  // namespace tvis::viewer
