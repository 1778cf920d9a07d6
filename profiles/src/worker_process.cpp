#include "worker_process.h"

#include "tvis/profiles/capture.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
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
  using tvis::process::Channel;
  WorkerProcessResult r;
  FILE* log = nullptr;
  if (!log_path.empty()) {
    log = open_private_log(log_path);
    if (!log) r.log_error = "cannot write the log " + log_path + ": " + std::strerror(errno);
  }
  tvis::process::SpawnOptions o;
  o.argv = argv, o.cwd = cwd;
  // stdin (the job), stdout and stderr (both to the log: the model's own output), the protocol (fd 3).
  o.in = o.out = o.err = tvis::process::Stdio::Pipe;
  o.protocol_fd = o.own_group = o.die_with_parent = true;
  bool clock_started = false, dropping = false;
  std::string line_buf;
  tvis::process::Pump p;
  p.input = input;
  p.limit_ms = deadlines.startup_ms;
  p.cancelled = capture_cancel_requested;
  p.on_data = [&](Channel ch, std::string_view chunk, tvis::process::Deadline& deadline) {
    if (ch != Channel::Protocol) {
      if (log) std::fwrite(chunk.data(), 1, chunk.size(), log), std::fflush(log);
      return;
    }
    line_buf.append(chunk);
    const bool was = clock_started;
    deliver_lines(line_buf, dropping, max_line_bytes, on_line, clock_started);
    if (!was && clock_started) deadline.restart(deadlines.run_ms);
  };
  static_cast<tvis::process::Result&>(r) = tvis::process::run(o, p);
  r.startup_timed_out = r.timed_out && !clock_started;
  if (log) std::fclose(log);
  return r;
}

}  // namespace tvis::profiles::detail
