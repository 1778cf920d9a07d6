#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace tvis::profiles::detail {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

SpawnedChild spawn_child(const std::vector<std::string>& argv, const std::string& cwd, bool own_group,
                         bool protocol_fd) {
  SpawnedChild c;
  int in[2], out[2], err[2], exec_err[2], proto[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(exec_err, O_CLOEXEC) ||
      (protocol_fd && pipe2(proto, O_CLOEXEC))) {
    c.error = std::string("pipe: ") + std::strerror(errno);
    return c;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    c.error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], exec_err[0], exec_err[1], proto[0], proto[1]})
      if (fd >= 0) close(fd);
    return c;
  }
  if (pid == 0) {
    if (own_group) setpgid(0, 0);
#ifdef __linux__
    // Killed when tvis ends (a `tvis mcp` its editor stops mid-call, a SIGTERM): a forward under a long
    // limit never outlives the process waiting for it. A parent already gone before this line: exit at once.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);
#endif
    if (protocol_fd) {  // fd 3 first: the pipes are all above 2, but one of them may be 3 itself
      const int p = proto[1] == 3 ? 3 : fcntl(proto[1], F_DUPFD_CLOEXEC, 10);
      if (p < 0) _exit(125);
      proto[1] = p;
    }
    dup2(in[0], 0), dup2(out[1], 1), dup2(err[1], 2);  // the copies are not close-on-exec
    if (protocol_fd) {
      if (proto[1] == 3) fcntl(3, F_SETFD, 0);
      else dup2(proto[1], 3);
    }
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    execvp(args[0], args.data());
    const int e = errno;
    if (write(exec_err[1], &e, sizeof e) < 0) {}
    _exit(127);
  }
  if (own_group) setpgid(pid, pid);  // both sides: no race with a kill of the group
  close(in[0]), close(out[1]), close(err[1]), close(exec_err[1]);
  if (protocol_fd) close(proto[1]);
  int e = 0;
  const bool exec_failed = read(exec_err[0], &e, sizeof e) == static_cast<ssize_t>(sizeof e);
  close(exec_err[0]);
  if (exec_failed) {
    close(in[1]), close(out[0]), close(err[0]);
    if (protocol_fd) close(proto[0]);
    waitpid(pid, nullptr, 0);
    c.error = "cannot start " + argv[0] + ": " + std::strerror(e);
    return c;
  }
  signal(SIGPIPE, SIG_IGN);
  c.pid = pid, c.in = in[1], c.out = out[0], c.err = err[0], c.protocol = proto[0];
  return c;
}

int reap_child(pid_t pid, int64_t deadline_ms, bool* timed_out) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(deadline_ms < 0 ? 0 : deadline_ms);
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) return status;
    if (std::chrono::steady_clock::now() >= until) break;
    usleep(5000);
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  if (timed_out) *timed_out = true;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return status;
}

ChildResult run_child(const std::vector<std::string>& argv, const std::string& input, const std::string& cwd,
                      int64_t timeout_ms) {
  ChildResult r;
  const SpawnedChild child = spawn_child(argv, cwd, true);
  if (child.pid < 0) {
    r.error = child.error;
    return r;
  }
  r.started = true;
  const pid_t pid = child.pid;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int fds[3] = {child.in, child.out, child.err};
  size_t written = 0;
  if (input.empty()) close_fd(fds[0]);
  char buf[65536];
  while (fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0) {
    const int64_t left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      kill(-pid, SIGKILL);
      r.timed_out = true;
      break;
    }
    pollfd p[3];
    int n = 0, which[3];
    for (int i = 0; i < 3; ++i)
      if (fds[i] >= 0) p[n] = {fds[i], static_cast<short>(i == 0 ? POLLOUT : POLLIN), 0}, which[n++] = i;
    if (poll(p, n, static_cast<int>(left > 1000 ? 1000 : left)) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < n; ++k) {
      const int i = which[k];
      if (!p[k].revents) continue;
      if (i == 0) {
        const ssize_t w = write(fds[0], input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 || written == input.size()) close_fd(fds[0]);
      } else {
        const ssize_t got = read(fds[i], buf, sizeof buf);
        if (got > 0) (i == 1 ? r.out : r.err).append(buf, static_cast<size_t>(got));
        else close_fd(fds[i]);
      }
    }
  }
  for (int& fd : fds) close_fd(fd);
  // The pipes closed (or the limit passed): the child may still run with them closed. It gets
  // what is left of the limit, then its group is killed.
  const int64_t left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  const int status = reap_child(pid, r.timed_out ? 0 : left, &r.timed_out);
  kill(-pid, SIGKILL);  // anything it left running in its group
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace tvis::profiles::detail
