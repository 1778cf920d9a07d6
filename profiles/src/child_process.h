// child_process.h (private): run a program with text on its stdin and
// collect its stdout and stderr, both pumped with poll() so neither pipe can
// fill and block the child. POSIX only.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include <string>
#include <vector>

namespace tvis::profiles::detail {

struct ChildResult {
  bool started = false;
  int exit_code = -1;  // -1 when killed by a signal
  bool timed_out = false;  // killed (its whole process group) at the limit
  std::string out, err;
  std::string error;  // why it could not be started
};

/// A started child: its pid and this process's ends of its stdin, stdout and
/// stderr pipes (close-on-exec); pid -1 and `error` when it did not start.
struct SpawnedChild {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  int protocol = -1;  // with `protocol_fd`: the read end of the child's fd 3
  std::string error;  // "pipe: ...", "fork: ...", "cannot start ARGV0: ..."
};

/// Starts argv (argv[0] searched in PATH when it has no '/') in `cwd` (exit
/// 126 when it cannot enter it), in a process group of its own when
/// `own_group` (so the whole group can be killed). An exec failure is
/// reported here, not as an exit code. On Linux the child is SIGKILLed when
/// this process ends (PR_SET_PDEATHSIG), so no worker outlives tvis. Ignores
/// SIGPIPE in this process. With `protocol_fd` the child's fd 3 is the write
/// end of one more pipe (SpawnedChild::protocol): a channel apart from
/// stdout, which the program's own code writes to.
SpawnedChild spawn_child(const std::vector<std::string>& argv, const std::string& cwd, bool own_group,
                         bool protocol_fd = false);

/// Waits for `pid` to end, at most until `deadline_ms` from now (then its
/// process group is killed with SIGKILL and it is reaped); its status.
/// Never blocks past the deadline whatever the child does with its pipes.
int reap_child(pid_t pid, int64_t deadline_ms, bool* timed_out);

/// Runs argv (argv[0] a path, searched in PATH when it has no '/') in `cwd`,
/// in a process group of its own, killed (the whole group) after `timeout_ms`
/// whatever it does (a child that closes its stdout and stderr and sleeps
/// included): ChildResult::timed_out.
ChildResult run_child(const std::vector<std::string>& argv, const std::string& input, const std::string& cwd,
                      int64_t timeout_ms = 60'000);

}  // namespace tvis::profiles::detail
