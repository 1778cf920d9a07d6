// event_tree.h: the call tree's shape: each event's depth below the top
// level, from its chain of parents.
//
// Contract: depth(id) walks up through loaded parents only; while a parent
// is loading it answers 0 and caches nothing (ask again next frame). A call
// never written (still open when a killed run ended) is a root, so its
// written children indent below it. Depths are cached for the run's life.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace tvis::viewer {

class RunModel;

class EventTree {
 public:
  explicit EventTree(RunModel& model) : model_(model) {}
  void reset() { depth_.clear(); }
  /// The call depth of event `id` (0 at the top).
  int depth(uint64_t id);

 private:
  RunModel& model_;
  std::unordered_map<uint64_t, int> depth_;
};

}  // namespace tvis::viewer
