// worker_process.h (private): start the capture worker and read its JSON
// lines as they come, under a deadline. The lines come on the worker's fd 3
// (a pipe of their own: the model's code writes to stdout, which goes to the
// log with stderr). The process is tvis_process's (run.h's pump): the
// deadline holds whatever the worker does (closing stdout, stderr and fd 3 and
// sleeping ends nothing: it is reaped in the loop that checks the deadline and
// cancel). The worker runs in its own process group, SIGKILLed when tvis
// ends; at the deadline the whole group is killed (SIGKILL), so a forward
// that sleeps or spins, and anything it started, stops. stdout and stderr are
// written to `log_path` as they arrive (tracebacks stay out of the result).
// POSIX only.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "tvis/process/run.h"

namespace tvis::profiles::detail {

/// The process's Result (timed_out: killed at a deadline; cancelled: because
/// request_capture_cancel() was called) and what is the worker's own.
struct WorkerProcessResult : tvis::process::Result {
  bool startup_timed_out = false;  // killed before it said `ready`
  std::string log_error;  // the log could not be written (one line)
};

struct WorkerDeadlines {
  int64_t startup_ms = 120'000;  // from start until the line that `starts_clock` accepts
  int64_t run_ms = 60'000;       // from that line on
};

/// Opens `path` for writing, mode 0600, never through a symlink, only a regular file of this user
/// (truncated); nullptr with errno set otherwise.
FILE* open_private_log(const std::string& path);

/// Runs argv with `input` on stdin. `on_line` sees each fd-3 line (without
/// the newline); it returns true for the line that starts the run clock.
/// Lines longer than `max_line_bytes` are dropped whole.
WorkerProcessResult run_worker_process(const std::vector<std::string>& argv, const std::string& input,
                                       const std::string& cwd, const std::string& log_path,
                                       const WorkerDeadlines& deadlines,
                                       const std::function<bool(const std::string&)>& on_line,
                                       size_t max_line_bytes = 64u << 20);

}  // namespace tvis::profiles::detail
