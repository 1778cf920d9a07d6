// spawn.h: the one way tvis starts another program (fork + exec). Every
// program tvis runs (the agent over ssh, ssh itself, the recorder's runner,
// the browser, the capture worker and the Python probes) starts here, so each
// guarantee below holds for all of them. POSIX only.
//
// What every child gets:
//   - no signal blocked and SIGPIPE at its default: tvis's own way of waiting
//     (stop signals blocked for sigwait, SIGPIPE ignored) is not inherited;
//     other dispositions are (a background job's ignored SIGINT stays ignored);
//   - only the descriptors asked for: every pipe made here is close-on-exec in
//     this process, and the child gets its ends only as fds 0-3 (or `keep_fd`);
//   - stdout and stderr of this process flushed before the fork, so what tvis
//     printed comes before what the child prints;
//   - nothing but async-signal-safe calls between fork and exec (the
//     argument vector and environment are built before the fork), so a
//     process with threads (tvis open, tvis mcp) may spawn.
// An exec failure is reported by spawn() itself (Child::error, exec_errno),
// not as an exit status to decode.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace tvis::process {

/// Where one of the child's fds 0, 1, 2 goes.
enum class Stdio {
  Inherit,  // this process's
  Null,     // /dev/null
  Pipe,     // a pipe whose other end is in Child (in, out, err)
};

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] the program
  bool search_path = true;        // argv[0] without '/' searched in PATH (execvp); false: execv
  std::string cwd;                // "" = this process's; a folder it cannot enter: exit status 126
  Stdio in = Stdio::Inherit, out = Stdio::Inherit, err = Stdio::Inherit;
  /// When not empty: stdout and stderr both appended to this file (created
  /// mode 0600), in place of `out` and `err`.
  std::string output_file;
  /// The child's fd 3 is the write end of one more pipe (Child::protocol): a
  /// channel apart from stdout, which the program's own code writes to.
  bool protocol_fd = false;
  /// A descriptor of this process left open in the child under the same
  /// number (a pipe end the program is told about on its command line). It
  /// must not be 0-2, nor 3 with protocol_fd. The caller still owns it.
  int keep_fd = -1;
  /// Set in the child's environment (replacing a variable of the same name);
  /// this process's own environment is not changed.
  std::vector<std::pair<std::string, std::string>> env;
  /// In a process group of its own (pgid = pid), so the whole group can be
  /// killed: it and anything it started.
  bool own_group = false;
  /// Linux: SIGKILLed when the thread that spawned it ends (PR_SET_PDEATHSIG),
  /// so it never outlives tvis; a parent already gone before it starts: exit 125.
  bool die_with_parent = false;
  /// Not this process's child: started through an intermediate process that
  /// exits at once (reaped here), so nothing is left to reap (the browser);
  /// die_with_parent does not apply.
  bool detached = false;
};

/// A started child: its pid and this process's ends of the pipes it asked
/// for (close-on-exec; -1 where none). Started when `error` is empty.
struct Child {
  pid_t pid = -1;    // 0 for a detached child (not ours to wait for)
  bool own_group = false;
  int in = -1, out = -1, err = -1;
  int protocol = -1;  // the read end of the child's fd 3 (SpawnOptions::protocol_fd)
  std::string error;  // "pipe: ...", "fork: ...", "cannot start ARGV0: ...", "cannot open FILE: ..."
  int exec_errno = 0;  // the exec's errno when the program could not be started (the child exited 127)
  bool started() const { return error.empty(); }
};

/// Starts `o.argv`. Ignores SIGPIPE in this process when the child's stdin is
/// a pipe (a child that exits early is a failed write, not the end of tvis).
Child spawn(const SpawnOptions& o);

/// Closes this process's pipe ends of `c` (those still open).
void close_pipes(Child& c);

}  // namespace tvis::process
