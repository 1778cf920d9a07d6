// process.h: the file checks that decide whether something can be started,
// exec in place, and run_quiet (a probe over tvis_process, whose wait.h has
// the waiting: wait_status, wait_forwarding_signals, exit_like). POSIX only.
#pragma once

#include <string>
#include <vector>

namespace tvis::cli {

/// A regular file (after symlinks).
bool is_file(const std::string& p);
/// A regular file this process may execute.
bool is_executable(const std::string& p);
/// A file starting with the ELF magic (a binary, not a script or shim).
bool is_elf(const std::string& p);

/// execv(argv[0], argv). Returns only if the exec failed (errno set).
void exec_argv(const std::vector<std::string>& argv);

/// Runs argv (argv[0] a path: no PATH search) with stdout/stderr sent to
/// /dev/null and waits. Its exit status; -1 if it could not be started or was
/// killed by a signal (127: exec failed).
int run_quiet(const std::vector<std::string>& argv);

}  // namespace tvis::cli
