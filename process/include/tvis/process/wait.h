// wait.h: waiting for a child that runs on its own (not pumped: its stdio is
// this process's, or threads read its pipes), ending one, and taking its
// ending as this process's. POSIX only.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace tvis::process {

/// waitpid(pid) retried on EINTR; the raw wait status.
int wait_status(pid_t pid);

/// What wait_within() found.
enum class Waited {
  Ended,    // reaped here: the status is set
  Running,  // still running at the limit
  NotOurs,  // no child of ours (already reaped elsewhere): the status is untouched
};

/// Waits at most `ms` for `pid` to end (never kills it).
Waited wait_within(pid_t pid, int64_t ms, int* status);

/// Sends `sig` to `pid` and, when `group`, to its process group.
void signal_child(pid_t pid, bool group, int sig);

/// The exit code in a raw wait status; -1 when it ended by a signal.
int exit_code(int status);

/// While waiting for `child`: SIGTERM and SIGHUP sent to this process are
/// forwarded to it, SIGINT is ignored (the terminal delivers it to the
/// child's process group directly). Returns the child's wait status.
int wait_forwarding_signals(pid_t child);

/// Ends this process the way `status` says the child ended: killed by the
/// same signal, else returns its exit code (1 when neither).
int exit_like(int status);

}  // namespace tvis::process
