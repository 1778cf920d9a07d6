// http_server.h: the bounded HTTP/1.1 server under `tvis open` (run_server.h).
//
// One I/O thread owns every connection that is waiting for a request head:
// it accepts, reads heads (http_head.h's limits), and judges each complete
// head with the gate (Host and token) before any body byte is read. Only a
// head the gate lets through reaches a worker (a fixed pool), which reads the
// body (at most max_body), calls the handler, writes the response and hands
// the connection back. So an idle or slow connection holds no worker, a
// request without the token costs one bounded head and never a worker, and
// every wait has a deadline:
//   - idle_timeout: a connection with no byte of its next request is closed;
//   - head_timeout: a head not complete this long after the wait began: 408, closed;
//   - io_timeout: a body read or response write that makes no progress: closed;
//   - max_connections: at the limit, the connection waiting longest is closed
//     to admit a new one (a flood of idle sockets cannot lock the browser out).
// Every response, refusals included, carries X-Frame-Options: DENY,
// Content-Security-Policy: frame-ancestors 'none' (no page of another site
// frames ours to click through it), X-Content-Type-Options: nosniff,
// Referrer-Policy: no-referrer (a URL holding the token is never sent on)
// and Cross-Origin-Resource-Policy: same-origin. A handler's exception is a
// 500 naming it; one while the response is written ends that connection.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <set>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "http_head.h"

namespace tvis::serve {

struct HttpLimits {
  HeadLimits head;
  std::chrono::milliseconds idle_timeout{5000};
  std::chrono::milliseconds head_timeout{10000};
  std::chrono::milliseconds io_timeout{30000};
  size_t max_body = 1u << 20;
  size_t max_connections = 256;
  size_t workers = 8;
  size_t max_requests_per_connection = 100000;
};

struct HttpRequest {
  RequestHead head;
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// A body too big to hold: stream_length bytes, asked for piece by piece
  /// from `stream(offset, &piece)`; false or an empty piece stops it and the
  /// connection is closed (the client sees a body shorter than promised).
  uint64_t stream_length = 0;
  std::function<bool(uint64_t offset, std::string* piece)> stream;

  void text(int code, const std::string& line) {
    status = code;
    content_type = "text/plain; charset=utf-8";
    body = line;
  }
};

class HttpServer {
 public:
  /// Runs on the I/O thread for each complete head, before its body: fast
  /// checks only. false: `*refusal` is sent and the connection closed.
  using Gate = std::function<bool(const RequestHead&, HttpResponse* refusal)>;
  /// Runs on a worker; an exception becomes a 500 naming it.
  using Handler = std::function<void(const HttpRequest&, HttpResponse*)>;

  HttpServer(HttpLimits limits, Gate gate, Handler handler);
  ~HttpServer();

  /// Binds 127.0.0.1 on a port the kernel picks; the port, or -1.
  int listen_loopback();
  void start();
  /// Stops accepting, lets running handlers finish, closes every connection, joins.
  void stop();

  /// Connections open now (waiting for a head, queued or being served).
  size_t open_connections() const { return open_.load(); }

 private:
  using Clock = std::chrono::steady_clock;
  struct Conn {
    int fd = -1;
    std::string buf;          // bytes received and not yet consumed
    Clock::time_point since;  // when the wait for the next head began
    size_t served = 0;
  };
  struct Job {
    Conn conn;
    RequestHead head;
    size_t head_bytes = 0;
  };

  void io_loop();
  void worker_loop();
  /// Parses what `c` holds: false when the connection was closed or handed to a worker.
  bool judge(Conn& c);
  void refuse(Conn& c, const HttpResponse& r);
  void close_conn(Conn& c);
  void serve(Job job);
  void wake();

  HttpLimits limits_;
  Gate gate_;
  Handler handler_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::thread io_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stopping_{false};
  std::atomic<size_t> open_{0};

  std::list<Conn> waiting_;  // owned by the I/O thread

  std::mutex mu_;  // guards jobs_ and returned_
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  std::vector<Conn> returned_;  // served, kept alive: back to the I/O thread
  std::set<int> busy_;  // sockets a worker is serving: stop() shuts them down to end their waits
};

}  // namespace tvis::serve
