// child_process.h (private): run a program with text on its stdin and
// collect its stdout and stderr, both pumped with poll() so neither pipe can
// fill and block the child. POSIX only.
#pragma once

#include <string>
#include <vector>

namespace tvis::profiles::detail {

struct ChildResult {
  bool started = false;
  int exit_code = -1;  // -1 when killed by a signal
  std::string out, err;
  std::string error;  // why it could not be started
};

/// Runs argv (argv[0] a path, searched in PATH when it has no '/') in `cwd`.
ChildResult run_child(const std::vector<std::string>& argv, const std::string& input, const std::string& cwd);

}  // namespace tvis::profiles::detail
