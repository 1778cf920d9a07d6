#include "tvis/process/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

extern char** environ;

namespace tvis::process {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

/// The child's environment: this process's with `env` replacing or adding
/// variables. Built before the fork (no allocation after it).
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& [name, value] : env) replaced = replaced || entry.compare(0, name.size() + 1, name + "=") == 0;
    if (!replaced) out.push_back(entry);
  }
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

/// What the child does between fork and exec: only async-signal-safe calls.
/// `target[i]` is the fd the child's fd i comes from (-1: inherited as is);
/// each is lifted above 9 first, so no dup2 can overwrite a source not yet
/// placed. Reports an exec failure's errno on `report` and exits 127.
[[noreturn]] void become_child(const SpawnOptions& o, int (&target)[4], int report, pid_t parent, char** argv,
                               char** envp) {
  if (o.own_group) ::setpgid(0, 0);
#ifdef __linux__
  if (o.die_with_parent && !o.detached) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(125);
  }
#else
  (void)parent;
#endif
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  for (int& fd : target)
    if (fd >= 0 && fd < 10 && (fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 10)) < 0) ::_exit(125);
  for (int i = 0; i < 4; ++i)
    if (target[i] >= 0 && ::dup2(target[i], i) < 0) ::_exit(125);  // the copy is not close-on-exec
  if (o.keep_fd >= 0) ::fcntl(o.keep_fd, F_SETFD, 0);
  if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0) ::_exit(126);
  if (envp) environ = envp;
  if (o.search_path) ::execvp(argv[0], argv);
  else ::execv(argv[0], argv);
  const int e = errno;
  if (::write(report, &e, sizeof e) < 0) {
  }
  ::_exit(127);
}

/// The fds the child's 0-3 come from, opened here (close-on-exec); false with `c.error`.
bool open_stdio(const SpawnOptions& o, Child& c, int (&pipes)[4][2], int (&target)[4]) {
  auto make_pipe = [&](int i) {
    if (::pipe2(pipes[i], O_CLOEXEC) == 0) return true;
    c.error = std::string("pipe: ") + std::strerror(errno);
    return false;
  };
  const Stdio modes[3] = {o.in, o.out, o.err};
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && !o.output_file.empty()) continue;
    if (modes[i] == Stdio::Pipe) {
      if (!make_pipe(i)) return false;
      target[i] = pipes[i][i == 0 ? 0 : 1];
    } else if (modes[i] == Stdio::Null) {
      pipes[i][0] = ::open("/dev/null", (i == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
      if (pipes[i][0] < 0) {
        c.error = std::string("cannot open /dev/null: ") + std::strerror(errno);
        return false;
      }
      target[i] = pipes[i][0];
    }
  }
  if (!o.output_file.empty()) {
    pipes[1][0] = ::open(o.output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (pipes[1][0] < 0) {
      c.error = "cannot open " + o.output_file + ": " + std::strerror(errno);
      return false;
    }
    target[1] = target[2] = pipes[1][0];
  }
  if (o.protocol_fd) {
    if (!make_pipe(3)) return false;
    target[3] = pipes[3][1];
  }
  return true;
}

/// Waits for the exec (or its failure, reported on `report`); false with `c.error` when it failed
/// (the child, `pid` > 0, reaped).
bool exec_succeeded(const SpawnOptions& o, Child& c, int report, pid_t pid) {
  int e = 0;
  ssize_t got;
  while ((got = ::read(report, &e, sizeof e)) < 0 && errno == EINTR) {
  }
  if (got != static_cast<ssize_t>(sizeof e)) return true;  // closed by the exec
  c.exec_errno = e;
  c.error = "cannot start " + o.argv[0] + ": " + std::strerror(e);
  while (pid > 0 && ::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return false;
}

}  // namespace

void close_pipes(Child& c) {
  close_fd(c.in);
  close_fd(c.out);
  close_fd(c.err);
  close_fd(c.protocol);
}

Child spawn(const SpawnOptions& o) {
  Child c;
  c.own_group = o.own_group;
  if (o.argv.empty()) {
    c.error = "cannot start a program: no command given";
    return c;
  }
  if (o.keep_fd >= 0 && (o.keep_fd <= 2 || (o.protocol_fd && o.keep_fd == 3))) {
    c.error = "cannot start " + o.argv[0] + ": fd " + std::to_string(o.keep_fd) + " cannot be passed on";
    return c;
  }
  int pipes[4][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
  int target[4] = {-1, -1, -1, -1};
  int report[2] = {-1, -1};
  auto close_all = [&] {
    for (auto& p : pipes) close_fd(p[0]), close_fd(p[1]);
    close_fd(report[0]), close_fd(report[1]);
  };
  if (!open_stdio(o, c, pipes, target)) return close_all(), c;
  if (::pipe2(report, O_CLOEXEC) != 0) {
    c.error = std::string("pipe: ") + std::strerror(errno);
    return close_all(), c;
  }
  std::vector<std::string> args = o.argv;
  std::vector<char*> argv = pointers(args);
  std::vector<std::string> env = o.env.empty() ? std::vector<std::string>{} : child_environment(o.env);
  std::vector<char*> envp = pointers(env);
  if (o.in == Stdio::Pipe) ::signal(SIGPIPE, SIG_IGN);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    c.error = std::string("fork: ") + std::strerror(errno);
    return close_all(), c;
  }
  if (pid == 0) {
    // A detached child: this intermediate process starts the program and exits at once.
    if (o.detached && ::fork() != 0) ::_exit(0);
    become_child(o, target, report[1], parent, argv.data(), o.env.empty() ? nullptr : envp.data());
  }
  if (o.own_group && !o.detached) ::setpgid(pid, pid);  // both sides: no race with a kill of the group
  close_fd(report[1]);
  // This process keeps its end of each pipe the child asked for; the rest (the child's ends, /dev/null,
  // the output file) only the child needs.
  const bool piped[4] = {o.in == Stdio::Pipe, o.output_file.empty() && o.out == Stdio::Pipe,
                         o.output_file.empty() && o.err == Stdio::Pipe, o.protocol_fd};
  int mine[4] = {-1, -1, -1, -1};
  for (int i = 0; i < 4; ++i) {
    if (piped[i]) std::swap(mine[i], pipes[i][i == 0 ? 1 : 0]);
    close_fd(pipes[i][0]), close_fd(pipes[i][1]);
  }
  if (o.detached) {  // the intermediate process exits at once; the program is init's child
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  const bool ok = exec_succeeded(o, c, report[0], o.detached ? 0 : pid);
  close_fd(report[0]);
  if (!ok) {
    for (int& fd : mine) close_fd(fd);
    return c;
  }
  c.pid = o.detached ? 0 : pid;
  c.in = mine[0], c.out = mine[1], c.err = mine[2], c.protocol = mine[3];
  return c;
}

}  // namespace tvis::process
