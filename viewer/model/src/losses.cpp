#include "tvis/viewer_model/losses.h"

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

void Losses::reset() {
  scan_.reset();
  by_step_.clear();
}

bool Losses::ready() {
  if (!model_.cache_if_open()) return false;
  return scan_.run<schema::LossRecord>(model_.cache(), model_.chunks_of_kind(format::ChunkKind::Loss), false,
                                       [&](ChunkBody<schema::LossRecord>& read) {
                                         by_step_[read.body->step()] = std::move(read);
                                       });
}

const schema::LossRecord* Losses::at_step(int step) {
  ready();
  auto it = by_step_.find(step);
  return it == by_step_.end() ? nullptr : it->second.body;
}

std::vector<std::pair<int, double>> Losses::curve() {
  ready();
  std::vector<std::pair<int, double>> out;
  out.reserve(by_step_.size());
  for (const auto& [step, read] : by_step_) out.emplace_back(step, read.body->value());
  return out;
}

}  // namespace tvis::viewer
