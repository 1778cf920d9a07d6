// run.h: the one poll pump and the one result of a child tvis waits for.
// pump() writes the child's stdin, reads its stdout, stderr and protocol pipe
// as they come (poll(), so no pipe can fill and block the child) and reaps it
// in the same loop that checks the limit and the cancel, so both hold
// whatever the child does: closing every pipe and sleeping ends nothing, and
// is killed at the limit. POSIX only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "tvis/process/spawn.h"

namespace tvis::process {

/// When a child is killed: a point in time, or none. A data callback may move
/// it (the capture worker's run clock starts at its `ready` line).
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  /// `ms` from now; < 0: no deadline.
  explicit Deadline(int64_t ms = -1) { restart(ms); }
  void restart(int64_t ms) {
    none_ = ms < 0;
    at_ = Clock::now() + std::chrono::milliseconds(ms < 0 ? 0 : ms);
  }
  bool none() const { return none_; }
  /// Milliseconds left (<= 0: passed); INT64_MAX when there is none.
  int64_t left_ms() const {
    if (none_) return INT64_MAX;
    return std::chrono::duration_cast<std::chrono::milliseconds>(at_ - Clock::now()).count();
  }

 private:
  bool none_ = true;
  Clock::time_point at_{};
};

/// Which of the child's pipes a chunk came from.
enum class Channel { Out, Err, Protocol };

struct Pump {
  /// Written to the child's stdin (when it is a pipe), which is then closed;
  /// empty: closed at once.
  std::string input;
  /// The child is killed with SIGKILL (its whole group with own_group) this
  /// long after pump() starts, whatever it does; < 0: no limit.
  int64_t limit_ms = -1;
  /// Each chunk read, as it comes; it may move the deadline. Null: stdout and
  /// stderr are collected into Result::out and Result::err.
  std::function<void(Channel, std::string_view, Deadline&)> on_data;
  /// Asked at least once a second (and after every chunk); true: the child is
  /// killed as at the limit (Result::cancelled).
  std::function<bool()> cancelled;
};

/// The one result of a child run to its end.
struct Result {
  bool started = false;
  std::string error;       // why it could not start (Child::error)
  int exec_errno = 0;      // Child::exec_errno
  int status = 0;          // the raw wait status
  int exit_code = -1;      // -1 when ended by a signal (or not started)
  bool timed_out = false;  // killed at the limit
  bool cancelled = false;  // killed because Pump::cancelled said so
  std::string out, err;    // collected when Pump::on_data is null
};

/// Pumps a started child (it takes over `c`'s pipe ends and closes them) to
/// its end. The loop ends when the child has been reaped and its pipes are
/// drained (a descendant still holding one is given 500 ms), at the limit or
/// on cancel. With own_group, anything left in the child's group is killed
/// once it is reaped.
Result pump(Child& c, const Pump& p);

/// spawn(o) then pump(): a child that could not start is Result::started false.
Result run(const SpawnOptions& o, const Pump& p = {});

}  // namespace tvis::process
