#include "worker_process.h"

#include "child_process.h"
#include "tvis/profiles/capture.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace tvis::profiles {

namespace {
volatile std::sig_atomic_t g_cancel = 0;  // set by request_capture_cancel(), from a signal handler too
}  // namespace

void request_capture_cancel() { g_cancel = 1; }
bool capture_cancel_requested() { return g_cancel != 0; }

}  // namespace tvis::profiles

namespace tvis::profiles::detail {

namespace {

using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

int64_t ms_until(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
}

// Splits `buf` into lines for on_line; keeps the unfinished tail.
void deliver_lines(std::string& buf, bool& dropping, size_t max_line,
                   const std::function<bool(const std::string&)>& on_line, bool& clock_started) {
  size_t start = 0;
  for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (dropping) {
      dropping = false;
      continue;
    }
    if (on_line(buf.substr(start, nl - start))) clock_started = true;
  }
  buf.erase(0, start);
  if (buf.size() > max_line) buf.clear(), dropping = true;
}

}  // namespace

FILE* open_private_log(const std::string& path) {
  // Never through a link, mode 0600: a log path in a shared folder cannot be redirected or read by others.
  // An existing regular file of this user is truncated (a log named again with --log).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
    ::close(fd);
    errno = EPERM;
    return nullptr;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  FILE* f = fdopen(fd, "w");
  if (!f) ::close(fd);
  return f;
}

WorkerProcessResult run_worker_process(const std::vector<std::string>& argv, const std::string& input,
                                       const std::string& cwd, const std::string& log_path,
                                       const WorkerDeadlines& deadlines,
                                       const std::function<bool(const std::string&)>& on_line,
                                       size_t max_line_bytes) {
  WorkerProcessResult r;
  FILE* log = nullptr;
  if (!log_path.empty()) {
    log = open_private_log(log_path);
    if (!log) r.log_error = "cannot write the log " + log_path + ": " + std::strerror(errno);
  }
  const SpawnedChild child = spawn_child(argv, cwd, true, /*protocol_fd=*/true);
  if (child.pid < 0) {
    r.error = child.error;
    if (log) std::fclose(log);
    return r;
  }
  r.started = true;
  const pid_t pid = child.pid;

  const auto t0 = Clock::now();
  Clock::time_point deadline = t0 + std::chrono::milliseconds(deadlines.startup_ms);
  bool clock_started = false, dropping = false;
  // stdin (the job), stdout and stderr (both to the log: the model's own output), the protocol (fd 3 in the worker).
  int fds[4] = {child.in, child.out, child.err, child.protocol};
  size_t written = 0;
  if (input.empty()) close_fd(fds[0]);
  std::string line_buf;
  char buf[65536];
  bool reaped = false;
  int status = 0;
  Clock::time_point drain_until{};
  // The loop ends when the worker has ended and its pipes are drained, at the deadline or on cancel,
  // whatever the worker does with its pipes (closing them all ends nothing: it is reaped here, with
  // the deadline and cancel still checked at least once a second).
  for (;;) {
    if (capture_cancel_requested()) {  // polled at least once a second (and at once: a signal ends poll)
      kill(-pid, SIGKILL);
      r.cancelled = true;
      break;
    }
    const int64_t left = ms_until(deadline);
    if (left <= 0) {
      kill(-pid, SIGKILL);
      r.timed_out = true;
      r.startup_timed_out = !clock_started;
      break;
    }
    if (!reaped) {
      const pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid || (w < 0 && errno == ECHILD)) {
        reaped = true;
        kill(-pid, SIGKILL);  // anything the worker left running in its group: its pipes close with it
        drain_until = Clock::now() + std::chrono::milliseconds(500);
      }
    }
    const bool open = fds[1] >= 0 || fds[2] >= 0 || fds[3] >= 0;
    if (reaped && (!open || Clock::now() >= drain_until)) break;  // a descendant in another group keeps no pipe open past this
    pollfd p[4];
    int n = 0, which[4];
    for (int i = 0; i < 4; ++i)
      if (fds[i] >= 0) p[n] = {fds[i], static_cast<short>(i == 0 ? POLLOUT : POLLIN), 0}, which[n++] = i;
    // With every pipe closed only the worker's end is awaited: look again soon.
    const int64_t wait = open ? (left > 1000 ? 1000 : left) : (left > 20 ? 20 : left);
    const int ready = poll(p, n, static_cast<int>(wait));
    if (ready < 0) {
      if (errno == EINTR) continue;
      kill(-pid, SIGKILL);
      break;
    }
    for (int k = 0; k < n; ++k) {
      const int i = which[k];
      if (!p[k].revents) continue;
      if (i == 0) {
        const ssize_t w = write(fds[0], input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 || written == input.size()) close_fd(fds[0]);
        continue;
      }
      const ssize_t got = read(fds[i], buf, sizeof buf);
      if (got <= 0) {
        close_fd(fds[i]);
        continue;
      }
      if (i == 1 || i == 2) {
        if (log) std::fwrite(buf, 1, static_cast<size_t>(got), log), std::fflush(log);
        continue;
      }
      line_buf.append(buf, static_cast<size_t>(got));
      const bool was = clock_started;
      deliver_lines(line_buf, dropping, max_line_bytes, on_line, clock_started);
      if (!was && clock_started) deadline = Clock::now() + std::chrono::milliseconds(deadlines.run_ms);
    }
  }
  for (int& fd : fds) close_fd(fd);
  if (!reaped) {  // killed above (deadline, cancel): SIGKILL ends it, so this wait is short
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  }
  kill(-pid, SIGKILL);  // anything the worker left running in its group
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (log) std::fclose(log);
  return r;
}

}  // namespace tvis::profiles::detail
