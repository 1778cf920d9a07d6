// own_time.h: the time tvis spends on its own work while it records.
//
// What a user reads on the timeline is their step; what tvis spends inside it
// (its hooks, tensor captures and host copies, Grad-CAM's gradient passes,
// insights, waits for the writer) is measured here and shown apart.
//
// Contract:
//   - enter() / exit() bracket tvis's work on the calling thread. Brackets
//     nest per thread: only the outermost pair of a thread counts, so a
//     Python hook and the native calls it makes count once. An exit()
//     without its enter() is ignored.
//   - total() is the ns spent inside outermost brackets so far, on every
//     thread: the closed ones, plus the calling thread's open one up to now
//     (another thread's open bracket counts once it closes). It never
//     decreases; the own time of an interval is the difference of two
//     total() readings, at most the interval's wall time when one thread
//     works at a time (the recorder is driven under the GIL).
//   - One OwnClock per recording; a thread brackets one clock's work at a time.
#pragma once

#include <atomic>
#include <cstdint>

namespace tvis::recorder {

class OwnClock {
 public:
  void enter();
  void exit();
  int64_t total() const;

 private:
  std::atomic<int64_t> closed_{0};
};

/// enter() now, exit() at the end of the scope.
class OwnScope {
 public:
  explicit OwnScope(OwnClock& clock) : clock_(clock) { clock_.enter(); }
  ~OwnScope() { clock_.exit(); }
  OwnScope(const OwnScope&) = delete;
  OwnScope& operator=(const OwnScope&) = delete;

 private:
  OwnClock& clock_;
};

}  // namespace tvis::recorder
