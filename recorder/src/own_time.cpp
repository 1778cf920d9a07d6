#include "tvis/recorder/own_time.h"

#include <chrono>

namespace tvis::recorder {

namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The calling thread's bracket: its depth and, when open, when it began.
thread_local int t_depth = 0;
thread_local int64_t t_start = 0;

}  // namespace

void OwnClock::enter() {
  if (t_depth++ == 0) t_start = steady_ns();
}

void OwnClock::exit() {
  if (t_depth == 0) return;
  if (--t_depth == 0) closed_.fetch_add(steady_ns() - t_start, std::memory_order_relaxed);
}

int64_t OwnClock::total() const {
  const int64_t closed = closed_.load(std::memory_order_relaxed);
  return t_depth > 0 ? closed + (steady_ns() - t_start) : closed;
}

}  // namespace tvis::recorder
