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
#include <cstring>

namespace tvis::profiles::detail {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

SpawnedChild spawn_child(const std::vector<std::string>& argv, const std::string& cwd, bool own_group) {
  SpawnedChild c;
  int in[2], out[2], err[2], exec_err[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(exec_err, O_CLOEXEC)) {
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
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], exec_err[0], exec_err[1]}) close(fd);
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
    dup2(in[0], 0), dup2(out[1], 1), dup2(err[1], 2);  // the copies are not close-on-exec
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    execvp(args[0], args.data());
    const int e = errno;
    if (write(exec_err[1], &e, sizeof e) < 0) {}
    _exit(127);
  }
  if (own_group) setpgid(pid, pid);  // both sides: no race with a kill of the group
  close(in[0]), close(out[1]), close(err[1]), close(exec_err[1]);
  int e = 0;
  const bool exec_failed = read(exec_err[0], &e, sizeof e) == static_cast<ssize_t>(sizeof e);
  close(exec_err[0]);
  if (exec_failed) {
    close(in[1]), close(out[0]), close(err[0]);
    waitpid(pid, nullptr, 0);
    c.error = "cannot start " + argv[0] + ": " + std::strerror(e);
    return c;
  }
  signal(SIGPIPE, SIG_IGN);
  c.pid = pid, c.in = in[1], c.out = out[0], c.err = err[0];
  return c;
}

ChildResult run_child(const std::vector<std::string>& argv, const std::string& input, const std::string& cwd) {
  ChildResult r;
  const SpawnedChild child = spawn_child(argv, cwd, false);
  if (child.pid < 0) {
    r.error = child.error;
    return r;
  }
  r.started = true;
  const pid_t pid = child.pid;
  int fds[3] = {child.in, child.out, child.err};
  size_t written = 0;
  if (input.empty()) close_fd(fds[0]);
  char buf[65536];
  while (fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0) {
    pollfd p[3];
    int n = 0, which[3];
    for (int i = 0; i < 3; ++i)
      if (fds[i] >= 0) p[n] = {fds[i], static_cast<short>(i == 0 ? POLLOUT : POLLIN), 0}, which[n++] = i;
    if (poll(p, n, -1) < 0) {
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
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace tvis::profiles::detail
