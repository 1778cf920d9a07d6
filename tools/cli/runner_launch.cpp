#include "runner_launch.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "tvis/process/spawn.h"
#include "tvis/process/wait.h"

namespace tvis::cli {

namespace {

/// The runner's process (runner_launch.h): its argv after the interpreter
/// (`--run-file F`, or `--go-fd N` for a waiting one), the package folder
/// first on PYTHONPATH and the module folders in its environment (this
/// process's own environment unchanged), stdin, stdout and stderr this
/// process's, no PATH search (`python` is a resolved path).
tvis::process::SpawnOptions runner_spawn(const RunnerLaunch& l, const std::string& python,
                                         const std::vector<std::string>& how) {
  tvis::process::SpawnOptions o;
  o.argv = {python, "-m", "tvis._runner"};
  o.argv.insert(o.argv.end(), how.begin(), how.end());
  o.argv.insert(o.argv.end(), l.runner_args.begin(), l.runner_args.end());
  o.search_path = false;
  const char* orig_pp = std::getenv("PYTHONPATH");
  const std::string& added = l.package_dir;
  o.env = {{"TVIS_NATIVE_DIRS", l.native_dirs},
           {"TVIS_ORIG_PYTHONPATH", orig_pp ? orig_pp : ""},
           {"PYTHONPATH", added + (orig_pp && *orig_pp ? std::string(":") + orig_pp : "")},
           {"TVIS_ADDED_PATHS", added}};
  return o;
}

}  // namespace

pid_t start_runner(const RunnerLaunch& l, const std::string& python, const std::string& run_file, std::string* error) {
  const tvis::process::Child c = tvis::process::spawn(runner_spawn(l, python, {"--run-file", run_file}));
  if (!c.started() && error) *error = c.error;
  return c.started() ? c.pid : -1;
}

WaitingRunner start_waiting_runner(const RunnerLaunch& l, const std::string& python) {
  WaitingRunner w;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return w;
  // The read end stays open in the runner only (keep_fd), which closes it once it has read its file.
  tvis::process::SpawnOptions o = runner_spawn(l, python, {"--go-fd", std::to_string(fds[0])});
  o.keep_fd = fds[0];
  const tvis::process::Child c = tvis::process::spawn(o);
  close(fds[0]);
  if (!c.started()) {  // silent: the caller falls back to start_runner, which says why
    close(fds[1]);
    return w;
  }
  w.pid = c.pid;
  w.go = fds[1];
  return w;
}

bool send_run_file(WaitingRunner* w, const std::string& run_file) {
  const std::string msg = run_file + "\n";
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);  // a runner that died gives EPIPE, not our death
  const bool ok = write(w->go, msg.data(), msg.size()) == ssize_t(msg.size());
  sigaction(SIGPIPE, &old, nullptr);
  close(w->go);
  w->go = -1;
  return ok;
}

void abandon(WaitingRunner* w) {
  if (w->go >= 0) close(w->go);
  w->go = -1;
  if (w->pid > 0) {
    kill(w->pid, SIGKILL);
    tvis::process::wait_status(w->pid);
  }
  w->pid = -1;
}

}  // namespace tvis::cli
