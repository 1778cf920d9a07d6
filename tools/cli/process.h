// process.h: starting and waiting for child processes, and the file checks
// that decide whether something can be started. POSIX only.
#pragma once

#include <sys/types.h>

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

/// waitpid(pid) retried on EINTR; the raw wait status.
int wait_status(pid_t pid);

/// Runs argv with stdout/stderr sent to /dev/null and waits. Its exit status;
/// -1 if it could not be started or was killed by a signal (127: exec failed).
int run_quiet(const std::vector<std::string>& argv);

/// While waiting for `child`: SIGTERM and SIGHUP sent to this process are
/// forwarded to it, SIGINT is ignored (the terminal delivers it to the
/// child's process group directly). Returns the child's wait status.
int wait_forwarding_signals(pid_t child);

/// Ends this process the way `status` says the child ended: killed by the
/// same signal, else returns its exit code (1 when neither).
int exit_like(int status);

}  // namespace tvis::cli
