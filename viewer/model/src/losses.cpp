#include "tvis/viewer_model/losses.h"

#include <algorithm>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

void Losses::reset() {
  scan_.reset();
  by_step_.clear();
  entries_.clear();
  entries_stale_ = false;
}

void Losses::add(ChunkBody<schema::LossRecord>& read) {
  auto& records = by_step_[read.body->step()];
  const uint64_t event = read.body->event();
  auto at = std::find_if(records.begin(), records.end(),
                         [&](const Indexed& r) { return r.read.body->event() > event; });
  LossEntry entry = loss_entry(*read.body, 0);
  records.insert(at, Indexed{std::move(read), std::move(entry)});
  for (size_t k = 0; k < records.size(); ++k) records[k].entry.backward = static_cast<int>(k);
  entries_stale_ = true;
}

bool Losses::ready() {
  if (!model_.cache_if_open()) return false;
  return scan_.run<schema::LossRecord>(model_.cache(), model_.chunks_of_kind(format::ChunkKind::Loss), false,
                                       [&](ChunkBody<schema::LossRecord>& read) { add(read); });
}

const schema::LossRecord* Losses::at_step(int step) {
  ready();
  auto it = by_step_.find(step);
  return it == by_step_.end() || it->second.empty() ? nullptr : it->second.front().read.body;
}

std::vector<const schema::LossRecord*> Losses::all_at_step(int step) {
  ready();
  std::vector<const schema::LossRecord*> out;
  auto it = by_step_.find(step);
  if (it != by_step_.end())
    for (const Indexed& r : it->second) out.push_back(r.read.body);
  return out;
}

std::vector<const schema::LossRecord*> Losses::all() {
  ready();
  std::vector<const schema::LossRecord*> out;
  for (const auto& [step, records] : by_step_)
    for (const Indexed& r : records) out.push_back(r.read.body);
  return out;
}

std::vector<std::pair<int, double>> Losses::curve() {
  ready();
  std::vector<std::pair<int, double>> out;
  out.reserve(by_step_.size());
  for (const auto& [step, records] : by_step_)
    for (const Indexed& r : records) out.emplace_back(step, r.read.body->value());
  return out;
}

const std::vector<LossEntry>& Losses::entries() {
  ready();
  if (entries_stale_) {
    entries_.clear();
    for (const auto& [step, records] : by_step_)
      for (const Indexed& r : records) entries_.push_back(r.entry);
    entries_stale_ = false;
  }
  return entries_;
}

size_t Losses::count() { return entries().size(); }

std::vector<LossEntry> Losses::entries_at_step(int step) {
  ready();
  std::vector<LossEntry> out;
  auto it = by_step_.find(step);
  if (it != by_step_.end())
    for (const Indexed& r : it->second) out.push_back(r.entry);
  return out;
}

std::optional<LossEntry> Losses::shown(int step, int backward) {
  ready();
  auto it = by_step_.find(step);
  if (it == by_step_.end() || it->second.empty()) return std::nullopt;
  const int last = static_cast<int>(it->second.size()) - 1;
  return it->second[static_cast<size_t>(std::clamp(backward, 0, last))].entry;
}

const schema::LossRecord* Losses::record(const LossEntry& e) {
  ready();
  auto it = by_step_.find(e.step);
  if (it == by_step_.end()) return nullptr;
  const size_t k = static_cast<size_t>(std::max(e.backward, 0));
  if (k < it->second.size() && it->second[k].read.body->event() == e.event) return it->second[k].read.body;
  for (const Indexed& other : it->second)  // indexed since `e` was copied: its position moved
    if (other.read.body->event() == e.event) return other.read.body;
  return nullptr;
}

}  // namespace tvis::viewer
