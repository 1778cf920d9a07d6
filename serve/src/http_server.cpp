#include "http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <exception>

namespace tvis::serve {

namespace {

using Clock = std::chrono::steady_clock;

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 416: return "Range Not Satisfiable";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
  }
}

/// On every response, refusals included (http_server.h).
constexpr const char* kSecurityHeaders =
    "X-Frame-Options: DENY\r\n"
    "Content-Security-Policy: frame-ancestors 'none'\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "Referrer-Policy: no-referrer\r\n"
    "Cross-Origin-Resource-Policy: same-origin\r\n";

std::string response_head(const HttpResponse& r, uint64_t length, bool keep_alive) {
  std::string h = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\n";
  h += "Content-Type: " + r.content_type + "\r\n";
  h += "Content-Length: " + std::to_string(length) + "\r\n";
  for (const auto& [k, v] : r.headers) h += k + ": " + v + "\r\n";
  h += kSecurityHeaders;
  h += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  return h + "\r\n";
}

/// Waits for `events` on fd until `timeout` passes; false on timeout or error.
bool wait_for(int fd, short events, std::chrono::milliseconds timeout) {
  pollfd p{fd, events, 0};
  const auto until = Clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) return false;
    const int n = ::poll(&p, 1, int(left));
    if (n < 0 && errno == EINTR) continue;
    return n > 0 && !(p.revents & POLLNVAL);
  }
}

/// Writes all of `data` to the non-blocking fd; no progress for `timeout`: false.
bool send_all(int fd, const char* data, size_t size, std::chrono::milliseconds timeout) {
  size_t done = 0;
  while (done < size) {
    const ssize_t w = ::send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (w > 0) {
      done += size_t(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd, POLLOUT, timeout)) return false;
      continue;
    }
    return false;
  }
  return true;
}

}  // namespace

HttpServer::HttpServer(HttpLimits limits, Gate gate, Handler handler)
    : limits_(limits), gate_(std::move(gate)), handler_(std::move(handler)) {}

HttpServer::~HttpServer() {
  stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
}

int HttpServer::listen_loopback() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_fd_, 128) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return -1;
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  return ntohs(a.sin_port);
}

void HttpServer::start() {
  io_ = std::thread([this] { io_loop(); });
  for (size_t i = 0; i < (limits_.workers ? limits_.workers : 1); ++i) workers_.emplace_back([this] { worker_loop(); });
}

void HttpServer::wake() {
  const char b = 1;
  if (wake_[1] >= 0) (void)!::write(wake_[1], &b, 1);
}

void HttpServer::stop() {
  if (stopping_.exchange(true)) return;
  wake();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : busy_) ::shutdown(fd, SHUT_RDWR);  // a worker waiting on a slow client returns now
  }
  cv_.notify_all();
  if (io_.joinable()) io_.join();
  for (auto& w : workers_)
    if (w.joinable()) w.join();
  workers_.clear();
  for (auto& c : waiting_) close_conn(c);
  waiting_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& j : jobs_) close_conn(j.conn);
  jobs_.clear();
  for (auto& c : returned_) close_conn(c);
  returned_.clear();
}

void HttpServer::close_conn(Conn& c) {
  if (c.fd < 0) return;
  ::close(c.fd);
  c.fd = -1;
  --open_;
}

void HttpServer::refuse(Conn& c, const HttpResponse& r) {
  // Best effort and never blocking the I/O thread: a refusal is small.
  const std::string out = response_head(r, r.body.size(), false) + r.body;
  (void)::send(c.fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(c.fd, SHUT_WR);
  close_conn(c);
}

bool HttpServer::judge(Conn& c) {
  Job job;
  const HeadParse p = parse_request_head(c.buf.data(), c.buf.size(), limits_.head, &job.head);
  if (p.error == HeadError::Incomplete) return true;
  HttpResponse r;
  if (p.error != HeadError::None) {
    r.text(head_error_status(p.error), std::string("tvis open: ") + head_error_text(p.error) + "\n");
    refuse(c, r);
    return false;
  }
  if (!gate_(job.head, &r)) {
    refuse(c, r);
    return false;
  }
  job.head_bytes = p.consumed;
  job.conn = std::move(c);
  c.fd = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
  return false;
}

void HttpServer::io_loop() {
  std::vector<pollfd> fds;
  char chunk[4096];
  while (!stopping_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& c : returned_) {
        c.since = Clock::now();
        waiting_.push_back(std::move(c));
      }
      returned_.clear();
    }
    // A kept-alive connection may already hold its next head (pipelining).
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (!it->buf.empty() && it->fd >= 0 && !judge(*it)) it = waiting_.erase(it);
      else ++it;
    }
    // Deadlines, and the poll timeout until the nearest one.
    const auto now = Clock::now();
    auto next = now + std::chrono::seconds(1);
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      const auto deadline = it->since + (it->buf.empty() ? limits_.idle_timeout : limits_.head_timeout);
      if (deadline <= now) {
        if (it->buf.empty()) {
          close_conn(*it);
        } else {
          HttpResponse r;
          r.text(408, std::string("tvis open: ") + head_error_text(HeadError::Incomplete) + "\n");
          refuse(*it, r);
        }
        it = waiting_.erase(it);
        continue;
      }
      if (deadline < next) next = deadline;
      ++it;
    }
    fds.clear();
    fds.push_back({wake_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (const auto& c : waiting_) fds.push_back({c.fd, POLLIN, 0});
    const int timeout = int(std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count()) + 1;
    const int n = ::poll(fds.data(), fds.size(), timeout);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    if (fds[0].revents) {
      while (::read(wake_[0], chunk, sizeof chunk) > 0) {
      }
    }
    // Reads first (the new connections are appended after the polled ones).
    size_t i = 2;
    for (auto it = waiting_.begin(); it != waiting_.end() && i < fds.size(); ++i) {
      if (!fds[i].revents) {
        ++it;
        continue;
      }
      bool keep = true;
      for (;;) {
        // Never hold more than one head's worth: the parser refuses past max_head_bytes.
        const size_t room = limits_.head.max_head_bytes + 1 > it->buf.size() ? limits_.head.max_head_bytes + 1 - it->buf.size() : 0;
        if (room == 0) break;
        const ssize_t r = ::recv(it->fd, chunk, room < sizeof chunk ? room : sizeof chunk, MSG_DONTWAIT);
        if (r > 0) {
          it->buf.append(chunk, size_t(r));
          continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        keep = false;  // the peer closed (or the socket failed) before a whole head
        break;
      }
      if (!keep) {
        close_conn(*it);
        it = waiting_.erase(it);
      } else if (!judge(*it)) {
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
    if (fds[1].revents) {
      for (;;) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        ++open_;
        if (open_.load() > limits_.max_connections && !waiting_.empty()) {
          // Make room: the connection that has waited longest goes.
          auto oldest = waiting_.begin();
          for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
            if (it->since < oldest->since) oldest = it;
          close_conn(*oldest);
          waiting_.erase(oldest);
        }
        if (open_.load() > limits_.max_connections) {  // every connection is being served
          Conn c;
          c.fd = fd;
          close_conn(c);
          continue;
        }
        Conn c;
        c.fd = fd;
        c.since = Clock::now();
        waiting_.push_back(std::move(c));
      }
    }
  }
}

void HttpServer::worker_loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    serve(std::move(job));
  }
}

void HttpServer::serve(Job job) {
  Conn c = std::move(job.conn);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) ::shutdown(c.fd, SHUT_RDWR);
    busy_.insert(c.fd);
  }
  auto done = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    busy_.erase(c.fd);
  };
  HttpRequest req;
  req.head = std::move(job.head);
  c.buf.erase(0, job.head_bytes);
  HttpResponse res;
  bool keep_alive = req.head.keep_alive && ++c.served < limits_.max_requests_per_connection;
  if (req.head.content_length > limits_.max_body) {
    res.text(413, "tvis open: the request body exceeds " + std::to_string(limits_.max_body) + " bytes\n");
    keep_alive = false;
  } else {
    bool ok = true;
    char chunk[16384];
    while (c.buf.size() < req.head.content_length) {
      const ssize_t r = ::recv(c.fd, chunk, sizeof chunk, MSG_DONTWAIT);
      if (r > 0) {
        c.buf.append(chunk, size_t(r));
        continue;
      }
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(c.fd, POLLIN, limits_.io_timeout)) continue;
      ok = false;
      break;
    }
    if (!ok) {
      done();
      close_conn(c);
      return;
    }
    req.body = c.buf.substr(0, req.head.content_length);
    c.buf.erase(0, req.head.content_length);
    try {
      handler_(req, &res);
    } catch (const std::exception& e) {
      res = HttpResponse{};
      res.text(500, std::string("tvis open: internal error: ") + e.what() + "\n");
    } catch (...) {
      res = HttpResponse{};
      res.text(500, "tvis open: internal error\n");
    }
  }
  if (stopping_) keep_alive = false;
  const bool head_only = req.head.method == "HEAD";
  bool ok = true;
  // Writing may fail to allocate too (a copy of a large body, a piece):
  // that ends this connection, never the server.
  try {
    const bool streamed = bool(res.stream);
    const uint64_t length = streamed ? res.stream_length : res.body.size();
    std::string out = response_head(res, length, keep_alive);
    if (!head_only && !streamed) out += res.body;
    ok = send_all(c.fd, out.data(), out.size(), limits_.io_timeout);
    if (ok && streamed && !head_only) {
      std::string piece;
      for (uint64_t at = 0; ok && at < length;) {
        piece.clear();
        if (stopping_ || !res.stream(at, &piece) || piece.empty() || piece.size() > length - at) {
          ok = false;
          break;
        }
        ok = send_all(c.fd, piece.data(), piece.size(), limits_.io_timeout);
        at += piece.size();
      }
    }
  } catch (...) {
    ok = false;
  }
  done();
  if (!ok || !keep_alive) {
    ::shutdown(c.fd, SHUT_WR);
    close_conn(c);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    returned_.push_back(std::move(c));
  }
  wake();
}

}  // namespace tvis::serve
