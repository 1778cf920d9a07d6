#include "runner_launch.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "process.h"

namespace tvis::cli {

namespace {

/// The PYTHONPATH entry the runner expects (the package) and the module
/// folders it chooses from (runner_launch.h).
void set_runner_environment(const RunnerLaunch& l) {
  const char* orig_pp = std::getenv("PYTHONPATH");
  setenv("TVIS_NATIVE_DIRS", l.native_dirs.c_str(), 1);
  const std::string& added = l.package_dir;
  const std::string pp = added + (orig_pp && *orig_pp ? std::string(":") + orig_pp : "");
  setenv("TVIS_ORIG_PYTHONPATH", orig_pp ? orig_pp : "", 1);
  setenv("PYTHONPATH", pp.c_str(), 1);
  setenv("TVIS_ADDED_PATHS", added.c_str(), 1);
}

/// In the child: the environment, then exec. Never returns. `go_fd` >= 0
/// makes a waiting runner (then an exec failure is silent: the parent falls
/// back to start_runner, which reports it).
[[noreturn]] void exec_runner(const RunnerLaunch& l, const std::string& python, const std::string& run_file,
                              int go_fd) {
  set_runner_environment(l);
  std::vector<std::string> argv = {python, "-m", "tvis._runner"};
  if (go_fd >= 0) {
    argv.insert(argv.end(), {"--go-fd", std::to_string(go_fd)});
  } else {
    argv.insert(argv.end(), {"--run-file", run_file});
  }
  argv.insert(argv.end(), l.runner_args.begin(), l.runner_args.end());
  exec_argv(argv);
  if (go_fd < 0) std::fprintf(stderr, "tvis run: cannot start %s: %s\n", python.c_str(), std::strerror(errno));
  _exit(2);
}

}  // namespace

pid_t start_runner(const RunnerLaunch& l, const std::string& python, const std::string& run_file) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) exec_runner(l, python, run_file, -1);
  return pid;
}

WaitingRunner start_waiting_runner(const RunnerLaunch& l, const std::string& python) {
  WaitingRunner w;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return w;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    fcntl(fds[0], F_SETFD, 0);  // the read end survives exec; the runner closes it
    exec_runner(l, python, "", fds[0]);
  }
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    return w;
  }
  w.pid = pid;
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
    wait_status(w->pid);
  }
  w->pid = -1;
}

}  // namespace tvis::cli
