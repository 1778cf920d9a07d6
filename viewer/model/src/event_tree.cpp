#include "tvis/viewer_model/event_tree.h"

#include <vector>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

namespace {
constexpr int kMaxDepthWalk = 256;
}  // namespace

int EventTree::depth(uint64_t id) {
  auto hit = depth_.find(id);
  if (hit != depth_.end()) return hit->second;
  std::vector<uint64_t> chain;
  int base = 0;
  uint64_t cur = id;
  for (int guard = 0; guard < kMaxDepthWalk; ++guard) {
    auto known = depth_.find(cur);
    if (known != depth_.end()) {
      base = known->second;
      break;
    }
    const schema::Event* e = model_.event(cur);
    if (!e && model_.event_state(cur) != EventState::NotRecorded) return 0;  // loading: ask again next frame
    chain.push_back(cur);
    if (!e) {  // a call that was never written: a root
      base = -1;
      break;
    }
    if (e->parent() < 0 || static_cast<uint64_t>(e->parent()) >= cur) {  // top level, or a malformed cycle
      base = -1;
      break;
    }
    cur = static_cast<uint64_t>(e->parent());
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) depth_[*it] = ++base;
  auto found = depth_.find(id);
  return found == depth_.end() ? 0 : found->second;
}

}  // namespace tvis::viewer
