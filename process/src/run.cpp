#include "tvis/process/run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "tvis/process/wait.h"

namespace tvis::process {

namespace {

using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

/// What pump() holds while the child runs.
struct Pumping {
  const Pump& p;
  Result& r;
  int fds[4];  // stdin, stdout, stderr, protocol: this process's ends
  size_t written = 0;
  Deadline deadline;

  /// One poll() result for fd slot `i`: writes the next part of the input or hands on what was read.
  void serve(int i) {
    if (i == 0) {
      const ssize_t w = ::write(fds[0], p.input.data() + written, p.input.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      if ((w < 0 && errno != EINTR && errno != EAGAIN) || written == p.input.size()) close_fd(fds[0]);
      return;
    }
    char buf[65536];
    const ssize_t got = ::read(fds[i], buf, sizeof buf);
    if (got < 0 && errno == EINTR) return;
    if (got <= 0) {
      close_fd(fds[i]);
      return;
    }
    const std::string_view chunk(buf, static_cast<size_t>(got));
    const Channel ch = i == 1 ? Channel::Out : i == 2 ? Channel::Err : Channel::Protocol;
    if (p.on_data) p.on_data(ch, chunk, deadline);
    else if (ch != Channel::Protocol) (ch == Channel::Out ? r.out : r.err).append(chunk);
  }

  bool any_output_open() const { return fds[1] >= 0 || fds[2] >= 0 || fds[3] >= 0; }

  /// Waits up to `wait_ms` for any open pipe and serves the ready ones; false on a poll error.
  bool poll_once(int64_t wait_ms) {
    pollfd pf[4];
    int n = 0, which[4];
    for (int i = 0; i < 4; ++i)
      if (fds[i] >= 0) pf[n] = {fds[i], static_cast<short>(i == 0 ? POLLOUT : POLLIN), 0}, which[n++] = i;
    const int ready = ::poll(pf, static_cast<nfds_t>(n), static_cast<int>(wait_ms));
    if (ready < 0) return errno == EINTR;
    for (int k = 0; k < n; ++k)
      if (pf[k].revents) serve(which[k]);
    return true;
  }
};

}  // namespace

Result pump(Child& c, const Pump& p) {
  Result r;
  if (c.pid <= 0) {  // not started, or detached: nothing of ours to pump
    r.error = c.error.empty() ? "no child to wait for" : c.error;
    close_pipes(c);
    return r;
  }
  r.started = true;
  const pid_t pid = c.pid;
  Pumping s{p, r, {c.in, c.out, c.err, c.protocol}, 0, Deadline(p.limit_ms)};
  c.in = c.out = c.err = c.protocol = -1;  // owned by the pump now
  if (p.input.empty()) close_fd(s.fds[0]);
  // Non-blocking: a write never waits for a child that stops reading (the limit still holds).
  if (s.fds[0] >= 0) ::fcntl(s.fds[0], F_SETFL, ::fcntl(s.fds[0], F_GETFL) | O_NONBLOCK);
  bool reaped = false;
  int status = 0;
  Clock::time_point drain_until{};
  // Ends when the child has been reaped and its pipes are drained, at the limit or on cancel, whatever
  // the child does with its pipes: it is reaped here, with the limit and cancel checked at least once a
  // second.
  for (;;) {
    if (p.cancelled && p.cancelled()) {  // a signal ends poll() at once, so a handler's flag is seen now
      signal_child(pid, c.own_group, SIGKILL);
      r.cancelled = true;
      break;
    }
    const int64_t left = s.deadline.left_ms();
    if (left <= 0) {
      signal_child(pid, c.own_group, SIGKILL);
      r.timed_out = true;
      break;
    }
    const bool open = s.any_output_open() || s.fds[0] >= 0;
    if (!reaped && !open && !p.cancelled && s.deadline.none()) {  // nothing to watch: just wait
      status = wait_status(pid);
      reaped = true;
    }
    if (!reaped && wait_within(pid, 0, &status) != Waited::Running) reaped = true;  // NotOurs: status 0
    if (reaped && drain_until == Clock::time_point{}) {
      if (c.own_group) ::kill(-pid, SIGKILL);  // what it left in its group: their pipes close with them
      drain_until = Clock::now() + std::chrono::milliseconds(500);
    }
    // A descendant in another group keeps no pipe open past the drain.
    if (reaped && (!s.any_output_open() || Clock::now() >= drain_until)) break;
    // With every pipe closed only the child's end is awaited: look again soon. Once reaped, no
    // longer than the drain.
    int64_t cap = open ? 1000 : 20;
    if (reaped) {
      const auto drain_left = std::chrono::duration_cast<std::chrono::milliseconds>(drain_until - Clock::now());
      cap = std::min<int64_t>(cap, drain_left.count() + 1);
    }
    if (!s.poll_once(std::min(left, cap))) {
      signal_child(pid, c.own_group, SIGKILL);
      break;
    }
  }
  for (int& fd : s.fds) close_fd(fd);
  if (!reaped) status = wait_status(pid);  // killed above: SIGKILL ends it, so this wait is short
  if (c.own_group) ::kill(-pid, SIGKILL);  // anything left in its group
  r.status = status;
  r.exit_code = exit_code(status);
  return r;
}

Result run(const SpawnOptions& o, const Pump& p) {
  Child c = spawn(o);
  if (!c.started()) {
    Result r;
    r.error = c.error;
    r.exec_errno = c.exec_errno;
    return r;
  }
  return pump(c, p);
}

}  // namespace tvis::process
