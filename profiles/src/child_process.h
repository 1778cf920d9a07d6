// child_process.h (private): run a program with text on its stdin and
// collect its stdout and stderr, both pumped with poll() so neither pipe can
// fill and block the child. POSIX only.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tvis::profiles::detail {

struct ChildResult {
  bool started = false;
  int exit_code = -1;  // -1 when killed by a signal
  std::string out, err;
  std::string error;  // why it could not be started
};

/// A started child: its pid and this process's ends of its stdin, stdout and
/// stderr pipes (close-on-exec); pid -1 and `error` when it did not start.
struct SpawnedChild {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  std::string error;  // "pipe: ...", "fork: ...", "cannot start ARGV0: ..."
};

/// Starts argv (argv[0] searched in PATH when it has no '/') in `cwd` (exit
/// 126 when it cannot enter it), in a process group of its own when
/// `own_group` (so the whole group can be killed). An exec failure is
/// reported here, not as an exit code. On Linux the child is SIGKILLed when
/// this process ends (PR_SET_PDEATHSIG), so no worker outlives tvis. Ignores
/// SIGPIPE in this process.
SpawnedChild spawn_child(const std::vector<std::string>& argv, const std::string& cwd, bool own_group);

/// Runs argv (argv[0] a path, searched in PATH when it has no '/') in `cwd`.
ChildResult run_child(const std::vector<std::string>& argv, const std::string& input, const std::string& cwd);

}  // namespace tvis::profiles::detail
