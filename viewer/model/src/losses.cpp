#include "tvis/viewer_model/losses.h"

#include <algorithm>

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
                                         auto& records = by_step_[read.body->step()];
                                         const uint64_t event = read.body->event();
                                         auto at = std::find_if(records.begin(), records.end(), [&](const auto& r) {
                                           return r.body->event() > event;
                                         });
                                         records.insert(at, std::move(read));
                                       });
}

const schema::LossRecord* Losses::at_step(int step) {
  ready();
  auto it = by_step_.find(step);
  return it == by_step_.end() || it->second.empty() ? nullptr : it->second.front().body;
}

std::vector<const schema::LossRecord*> Losses::all_at_step(int step) {
  ready();
  std::vector<const schema::LossRecord*> out;
  auto it = by_step_.find(step);
  if (it != by_step_.end())
    for (const auto& read : it->second) out.push_back(read.body);
  return out;
}

std::vector<const schema::LossRecord*> Losses::all() {
  ready();
  std::vector<const schema::LossRecord*> out;
  for (const auto& [step, records] : by_step_)
    for (const auto& read : records) out.push_back(read.body);
  return out;
}

std::vector<std::pair<int, double>> Losses::curve() {
  ready();
  std::vector<std::pair<int, double>> out;
  out.reserve(by_step_.size());
  for (const auto& [step, records] : by_step_)
    for (const auto& read : records) out.emplace_back(step, read.body->value());
  return out;
}

}  // namespace tvis::viewer
