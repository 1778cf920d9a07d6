#include "tvis/remote/agent_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>

#include "tvis/process/spawn.h"
#include "tvis/process/wait.h"
#include "tvis/remote/frame_io.h"

namespace tvis::remote {

namespace {

constexpr size_t kStderrKeep = 2000;

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "ended";
}

/// The last non-empty lines of `text`, joined by " | ", at most ~300 chars.
std::string last_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  std::string out;
  for (size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i) out += (out.empty() ? "" : " | ") + lines[i];
  if (out.size() > 300) out = "..." + out.substr(out.size() - 300);
  return out;
}

std::string seconds_text(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", double(ms.count()) / 1000.0);
  return buf;
}

/// write_all with a deadline on a non-blocking fd: an agent that stops reading its stdin fails the write.
bool write_until(int fd, const std::string& data, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w > 0) {
      done += size_t(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, int(left));
      continue;
    }
    return false;
  }
  return true;
}

}  // namespace

Outcome<std::shared_ptr<AgentClient>> AgentClient::start(const std::vector<std::string>& argv, AgentLimits limits) {
  using R = Outcome<std::shared_ptr<AgentClient>>;
  // Its own process group (ssh and anything it started end together); it does not inherit tvis's
  // blocked SIGINT/SIGTERM (spawn.h). Ctrl-C reaches tvis, which ends the agent by closing its stdin.
  process::SpawnOptions o;
  o.argv = argv;
  o.in = o.out = o.err = process::Stdio::Pipe;  // and SIGPIPE ignored: a dead agent is a failed write
  o.own_group = true;
  process::Child child = process::spawn(o);
  if (!child.started() && child.exec_errno != 0)  // as a shell says it: the agent command is not there
    return R::bad("`" + argv[0] + "` exited with status 127 before the agent answered: cannot run " + argv[0] + ": " +
                      std::strerror(child.exec_errno),
                  ErrorKind::Unreachable);
  if (!child.started()) return R::bad("cannot start the agent: " + child.error);
  const pid_t pid = child.pid;
  std::shared_ptr<AgentClient> c(new AgentClient());
  c->limits_ = limits;
  c->pid_ = pid;
  c->to_agent_ = child.in;
  ::fcntl(child.in, F_SETFL, ::fcntl(child.in, F_GETFL) | O_NONBLOCK);  // writes wait with a deadline (write_until)
  c->from_agent_ = child.out;
  std::thread([tail = c->stderr_, fd = child.err] {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard<std::mutex> lock(tail->mu);
      tail->text.append(buf, size_t(n));
      if (tail->text.size() > 2 * kStderrKeep) tail->text.erase(0, tail->text.size() - kStderrKeep);
    }
    ::close(fd);
    std::lock_guard<std::mutex> lock(tail->mu);
    tail->done = true;
    tail->cv.notify_all();
  }).detach();

  // Hello is id 0, registered before the reader starts.
  {
    std::lock_guard<std::mutex> lock(c->mu_);
    c->pending_[0] = Pending{};
  }
  c->reader_ = std::thread([raw = c.get()] { raw->read_loop(); });
  const std::string hello = encode_frame({0, MessageType::Hello, hello_payload(kProtocolVersion)});
  c->bytes_sent_ += hello.size();
  write_until(c->to_agent_, hello, limits.hello);  // a failure shows as the stream's end below

  std::unique_lock<std::mutex> lock(c->mu_);
  const bool answered = c->cv_.wait_for(lock, limits.hello, [&] { return c->pending_[0].done; });
  if (!answered) {
    lock.unlock();
    return R::bad("no answer from the agent within " + seconds_text(limits.hello) + " s", ErrorKind::TimedOut);
  }
  Frame reply = c->pending_[0].reply;
  c->pending_.erase(0);
  if (reply.type == MessageType::Hello) {
    uint32_t version = 0;
    if (!parse_hello(reply.payload, &version)) return R::bad("the remote command answered, but not as a tvis agent");
    if (version != kProtocolVersion) {
      lock.unlock();
      return R::bad("the agent speaks protocol version " + std::to_string(version) + ", this tvis speaks version " +
                    std::to_string(kProtocolVersion) + ": install the same tvis version on both machines");
    }
    return R::good(c);
  }
  if (reply.type == MessageType::Error && reply.id != UINT32_MAX) {
    ErrorKind kind;
    std::string message;
    parse_error(reply.payload, &kind, &message);
    return R::bad("the agent refused: " + message, kind);
  }
  // The stream ended: say why, with its stderr.
  const std::string why = reply.payload;
  lock.unlock();
  ::close(c->to_agent_);
  c->to_agent_ = -1;
  lock.lock();
  c->cv_.wait_for(lock, std::chrono::seconds(5), [&] { return c->exit_status_ != -1; });
  std::string msg = why;
  if (why.rfind("not a tvis agent", 0) == 0)
    msg = "the remote command answered, but not as a tvis agent (" + why.substr(std::string("not a tvis agent stream: ").size()) + ")";
  else if (c->exit_status_ != -1)
    msg = "`" + argv[0] + "` " + describe_status(c->exit_status_) + " before the agent answered";
  lock.unlock();
  std::string text;
  {
    // The stream has ended; its stderr ends with it, except for a
    // grandchild still holding the pipe: then what arrived so far.
    std::unique_lock<std::mutex> tl(c->stderr_->mu);
    c->stderr_->cv.wait_for(tl, std::chrono::seconds(1), [&] { return c->stderr_->done; });
    text = c->stderr_->text;
  }
  const std::string tail = last_lines(text);
  if (!tail.empty()) msg += ": " + tail;
  return R::bad(msg, ErrorKind::Unreachable);
}

void AgentClient::read_loop() {
  std::string error;
  std::string skipped;
  if (!read_sync_line(from_agent_, &skipped)) {
    // Not an agent: say what it printed (its first line), or that it printed nothing.
    std::string first = skipped.substr(0, skipped.find('\n'));
    if (first.size() > 120) first = first.substr(0, 120) + "...";
    error = skipped.empty() ? "the agent closed the connection"
                            : "not a tvis agent stream: it printed '" + first + "' and no agent greeting";
    if (!skipped.empty() && skipped.size() >= kMaxPreamble) ::kill(-pid_, SIGTERM);
  }
  bytes_received_ += skipped.size() + (error.empty() ? sizeof kSyncLine - 1 : 0);
  // A reply of up to kMaxReplyBytes is assembled here: an allocation that
  // fails ends this connection (its calls fail), never the process.
  try {
  for (; error.empty();) {
    Frame f;
    uint64_t got = 0;
    const ReadFrameResult r = read_frame(from_agent_, &f, &error, &got);
    bytes_received_ += got;
    if (r == ReadFrameResult::Eof) {
      error = "the agent closed the connection";
      break;
    }
    if (r == ReadFrameResult::Error) {
      error = "not a tvis agent stream: " + error;
      ::kill(-pid_, SIGTERM);  // whatever it is, it is not ours to talk to (the reaping below insists)
      break;
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(f.id);
    if (it == pending_.end() || it->second.done) {
      if (f.type == MessageType::Error) {  // an error about the session itself (bad root)
        ErrorKind kind;
        std::string message;
        parse_error(f.payload, &kind, &message);
        error = "agent: " + message;
        break;
      }
      continue;
    }
    Pending& p = it->second;
    if (f.type == MessageType::Part) {  // the first bytes of a long reply (protocol.h)
      if (p.parts.size() + f.payload.size() > kMaxReplyBytes) p.too_large = true;
      if (!p.too_large) p.parts += f.payload;
      continue;
    }
    if (p.too_large) {
      f.type = MessageType::Error;
      f.payload = error_payload(ErrorKind::TooLarge, "the agent's reply exceeds " + std::to_string(kMaxReplyBytes >> 20) + " MiB");
    } else if (!p.parts.empty()) {
      if (f.type == MessageType::Ok) f.payload = p.parts + f.payload;
      p.parts.clear();
    }
    p.reply = std::move(f);
    p.done = true;
    cv_.notify_all();
  }
  } catch (const std::bad_alloc&) {
    error = "out of memory holding the agent's reply";
    ::kill(-pid_, SIGTERM);
  }
  // Reap the agent so the exit status can be reported: it normally exits
  // with its stdout; one that closed stdout and lingers is ended after 2 s,
  // so no caller waits on it.
  int status = 0;
  process::Waited waited = process::wait_within(pid_, 2000, &status);
  if (waited == process::Waited::Running) {
    end_agent();  // SIGKILL at the latest: the wait below is short
    waited = process::wait_within(pid_, 10'000, &status);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (waited == process::Waited::Ended) exit_status_ = status;
    if (exit_status_ != -1 && error == "the agent closed the connection") error = "the agent " + describe_status(status);
  }
  fail_all(error);
}

void AgentClient::fail_all(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  dead_ = true;
  if (dead_reason_.empty()) dead_reason_ = why;
  for (auto& [id, p] : pending_) {
    if (p.done) continue;
    p.done = true;
    p.reply = {id, MessageType::Error, why};
    p.reply.id = UINT32_MAX;  // marks "connection ended", not an agent Error
  }
  cv_.notify_all();
}

void AgentClient::end_agent() {
  // The agent runs in its own process group (start()): ssh and anything it started.
  process::signal_child(pid_, true, SIGTERM);
  int status = 0;
  const process::Waited w = process::wait_within(pid_, 1000, &status);
  if (w == process::Waited::Ended) {
    std::lock_guard<std::mutex> lock(mu_);
    exit_status_ = status;
    return;
  }
  if (w == process::Waited::NotOurs) return;  // reaped already
  process::signal_child(pid_, true, SIGKILL);  // one that ignores SIGTERM must not hang tvis
}

Outcome<std::string> AgentClient::call(MessageType type, const std::string& payload) {
  uint32_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (dead_)
      return Outcome<std::string>::bad(dead_reason_.rfind("agent: ", 0) == 0 ? dead_reason_ : "connection lost: " + dead_reason_,
                                       ErrorKind::Unreachable);
    id = next_id_++;
    if (next_id_ == UINT32_MAX) next_id_ = 1;
    pending_[id] = Pending{};
  }
  const std::string frame = encode_frame({id, type, payload});
  {
    std::lock_guard<std::mutex> lock(write_mu_);
    if (to_agent_ < 0 || !write_until(to_agent_, frame, limits_.call)) {
      // The reader sees the end too and fails this call; nothing else to do.
    } else {
      bytes_sent_ += frame.size();
    }
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, limits_.call, [&] { return pending_[id].done; })) {
    pending_.erase(id);
    lock.unlock();
    const std::string why = "the agent did not answer within " + seconds_text(limits_.call) + " s";
    fail_all(why);  // every later reply waits behind this one: the connection is done
    end_agent();
    return Outcome<std::string>::bad(why, ErrorKind::TimedOut);
  }
  Frame reply = std::move(pending_[id].reply);
  pending_.erase(id);
  if (reply.type == MessageType::Ok) return Outcome<std::string>::good(std::move(reply.payload));
  if (reply.id == UINT32_MAX)
    return Outcome<std::string>::bad(reply.payload.rfind("agent: ", 0) == 0 ? reply.payload : "connection lost: " + reply.payload,
                                     ErrorKind::Unreachable);
  if (reply.type != MessageType::Error)
    return Outcome<std::string>::bad("the agent answered with message type " + std::to_string(int(reply.type)),
                                     ErrorKind::Malformed);
  ErrorKind kind;
  std::string message;
  parse_error(reply.payload, &kind, &message);
  return Outcome<std::string>::bad(message, kind);
}

AgentClient::~AgentClient() {
  {
    std::lock_guard<std::mutex> lock(write_mu_);
    if (to_agent_ >= 0) ::close(to_agent_);  // the agent exits at the end of its stdin
    to_agent_ = -1;
  }
  // Give it a moment, then insist: a hung ssh must not hang tvis.
  for (int i = 0; i < 50 && !dead_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (!dead_ || exit_status_ == -1) end_agent();
  if (reader_.joinable()) reader_.join();
  ::close(from_agent_);
}

}  // namespace tvis::remote
