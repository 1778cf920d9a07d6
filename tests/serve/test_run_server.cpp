// tvis open's server attacked over raw sockets (issue 29, items 7, 11, 13).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "run_list_page.h"
#include "tvis/serve/run_server.h"

using namespace tvis;
using Clock = std::chrono::steady_clock;

namespace {

/// A store of one file "r/run.tvis" whose stat and reads can lie or fail.
struct FakeStore : remote::RunStore {
  std::string bytes = std::string(100, 'x');
  uint64_t stat_size = 100;      // what stat() says
  uint64_t read_file_size = 100;  // what read() says the size is
  remote::ErrorKind fail_kind = remote::ErrorKind::Failed;
  bool fail = false;
  std::string catalog = "[]";
  std::atomic<int> reads{0};
  remote::Outcome<std::string> list() override { return remote::Outcome<std::string>::good(catalog); }
  remote::Outcome<remote::FileStat> stat(const std::string&) override {
    ++reads;
    if (fail) return remote::Outcome<remote::FileStat>::bad("failed on purpose", fail_kind);
    return remote::Outcome<remote::FileStat>::good({stat_size, 0});
  }
  remote::Outcome<remote::ReadResult> read(const std::string&, uint64_t offset, uint32_t length) override {
    ++reads;
    if (fail) return remote::Outcome<remote::ReadResult>::bad("failed on purpose", fail_kind);
    remote::ReadResult r;
    r.file_size = read_file_size;
    if (offset > bytes.size() || length > bytes.size() - offset)
      return remote::Outcome<remote::ReadResult>::bad("past the end", remote::ErrorKind::PastEnd);
    r.bytes = bytes.substr(offset, length);
    return remote::Outcome<remote::ReadResult>::good(r);
  }
  std::string describe() const override { return "fake"; }
};

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  return fd;
}

bool send_text(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t w = ::send(fd, s.data() + done, s.size() - done, MSG_NOSIGNAL);
    if (w <= 0) return false;
    done += size_t(w);
  }
  return true;
}

/// Everything the server sends until it closes or `timeout` passes.
std::string receive_all(int fd, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000), bool* closed = nullptr) {
  std::string out;
  const auto until = Clock::now() + timeout;
  char buf[65536];
  if (closed) *closed = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, int(left)) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      if (closed) *closed = true;
      break;
    }
    out.append(buf, size_t(n));
  }
  return out;
}

/// One request on a fresh connection with "Connection: close"; the whole answer.
std::string ask(int port, const std::string& head_lines, const std::string& path) {
  const int fd = connect_to(port);
  send_text(fd, "GET " + path + " HTTP/1.1\r\n" + head_lines + "Connection: close\r\n\r\n");
  std::string r = receive_all(fd);
  ::close(fd);
  return r;
}

int status_of(const std::string& response) {
  if (response.size() < 12 || response.rfind("HTTP/1.1 ", 0) != 0) return 0;
  return std::stoi(response.substr(9, 3));
}

struct Served {
  std::shared_ptr<FakeStore> store = std::make_shared<FakeStore>();
  std::unique_ptr<serve::RunServer> server;
  int port = 0;
  std::string token = std::string(32, 'a');
  std::string host;
  explicit Served(serve::ServeOptions o = {}) {
    o.token = token;
    server = std::make_unique<serve::RunServer>(store, o);
    auto started = server->start();
    REQUIRE(started.ok);
    port = started.value;
    host = "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  }
  std::string tokened(const std::string& path) const {
    return path + (path.find('?') == std::string::npos ? "?" : "&") + "token=" + token;
  }
};

}  // namespace

TEST_CASE("the token is checked on the head: a huge head is refused after a bounded read, 431", "[serve]") {
  Served s;
  const int fd = connect_to(s.port);
  std::string head = "GET / HTTP/1.1\r\n" + s.host;
  const std::string line = "X-Filler: " + std::string(1000, 'a') + "\r\n";
  // 64 MiB of headers: the server must answer and close long before they are all sent.
  bool all_sent = true;
  send_text(fd, head);
  for (int i = 0; i < 64 * 1024 && all_sent; ++i) all_sent = send_text(fd, line);
  const std::string r = receive_all(fd, std::chrono::milliseconds(3000));
  ::close(fd);
  CHECK_FALSE(all_sent);  // the server stopped reading (closed) within its head limit
  if (!r.empty()) CHECK(status_of(r) == 431);
}

TEST_CASE("idle connections cannot starve the workers; they are closed after the idle timeout", "[serve]") {
  serve::ServeOptions o;
  o.idle_timeout_ms = 400;
  o.workers = 2;
  Served s(o);
  std::vector<int> idle;
  for (int i = 0; i < 40; ++i) idle.push_back(connect_to(s.port));
  const auto t0 = Clock::now();
  const std::string r = ask(s.port, s.host, s.tokened("/api/stats"));
  CHECK(status_of(r) == 200);
  CHECK(Clock::now() - t0 < std::chrono::milliseconds(1000));
  // Each idle socket is closed by the server once the idle timeout passes.
  bool closed = false;
  receive_all(idle[0], std::chrono::milliseconds(3000), &closed);
  CHECK(closed);
  for (int fd : idle) ::close(fd);
}

TEST_CASE("a head that trickles in is cut off at the head deadline with 408", "[serve]") {
  serve::ServeOptions o;
  o.head_timeout_ms = 500;
  Served s(o);
  const int fd = connect_to(s.port);
  send_text(fd, "GET / HTTP/1.1\r\n");
  const auto t0 = Clock::now();
  bool closed = false;
  const std::string r = receive_all(fd, std::chrono::milliseconds(3000), &closed);
  ::close(fd);
  CHECK(closed);
  CHECK(status_of(r) == 408);
  CHECK(Clock::now() - t0 < std::chrono::milliseconds(2000));
}

TEST_CASE("without the token: 403 before Range, routes or a body are looked at", "[serve]") {
  Served s;
  // A Range past the end would be 416: the gate answers first.
  CHECK(status_of(ask(s.port, s.host + "Range: bytes=999999-\r\n", "/run/r/run.tvis")) == 403);
  CHECK(status_of(ask(s.port, s.host + "Range: bytes=garbage\r\n", "/run/r/run.tvis?token=wrong")) == 403);
  // A body announced as 1 GiB and never sent: refused at once, nothing waited for.
  const int fd = connect_to(s.port);
  const auto t0 = Clock::now();
  send_text(fd, "POST /api/setup HTTP/1.1\r\n" + s.host + "Content-Length: 1073741824\r\n\r\n");
  const std::string r = receive_all(fd, std::chrono::milliseconds(3000));
  ::close(fd);
  CHECK(status_of(r) == 403);
  CHECK(Clock::now() - t0 < std::chrono::milliseconds(1000));
  // With the token, a body over the limit is 413 (not read).
  const int fd2 = connect_to(s.port);
  send_text(fd2, "POST /api/x HTTP/1.1\r\n" + s.host + "X-Tvis-Token: " + s.token + "\r\nContent-Length: 1073741824\r\n\r\n");
  CHECK(status_of(receive_all(fd2, std::chrono::milliseconds(3000))) == 413);
  ::close(fd2);
}

TEST_CASE("only requests for this server's own host are answered (DNS rebinding)", "[serve]") {
  Served s;
  const std::string port = std::to_string(s.port);
  CHECK(status_of(ask(s.port, "Host: evil.example:" + port + "\r\n", s.tokened("/api/stats"))) == 403);
  CHECK(status_of(ask(s.port, "Host: 127.0.0.1:1\r\n", s.tokened("/api/stats"))) == 403);
  CHECK(status_of(ask(s.port, "", s.tokened("/api/stats"))) == 403);
  CHECK(status_of(ask(s.port, "Host: localhost:" + port + "\r\n", s.tokened("/api/stats"))) == 200);
  CHECK(status_of(ask(s.port, "Host: [::1]:" + port + "\r\n", s.tokened("/api/stats"))) == 200);
  CHECK(status_of(ask(s.port, s.host, s.tokened("/api/stats"))) == 200);
}

TEST_CASE("a store failure's status comes from its kind", "[serve]") {
  Served s;
  s.store->fail = true;
  const std::pair<remote::ErrorKind, int> cases[] = {
      {remote::ErrorKind::Refused, 403},     {remote::ErrorKind::NotFound, 404},  {remote::ErrorKind::TimedOut, 504},
      {remote::ErrorKind::Unreachable, 502}, {remote::ErrorKind::Malformed, 502}, {remote::ErrorKind::Failed, 500}};
  for (const auto& [kind, status] : cases) {
    s.store->fail_kind = kind;
    CHECK(status_of(ask(s.port, s.host + "Range: bytes=0-9\r\n", s.tokened("/run/r/run.tvis"))) == status);
    CHECK(status_of(ask(s.port, s.host, s.tokened("/run/r/run.tvis"))) == status);
  }
}

TEST_CASE("keep-alive serves several requests on one connection, pipelined too", "[serve]") {
  Served s;
  const int fd = connect_to(s.port);
  const std::string req = "GET " + s.tokened("/run/r/run.tvis") + " HTTP/1.1\r\n" + s.host + "Range: bytes=0-9\r\n\r\n";
  send_text(fd, req + req);
  const std::string r = receive_all(fd, std::chrono::milliseconds(1000));
  ::close(fd);
  size_t count = 0;
  for (size_t at = r.find("HTTP/1.1 206"); at != std::string::npos; at = r.find("HTTP/1.1 206", at + 1)) ++count;
  CHECK(count == 2);
}

TEST_CASE("a GET without Range streams only what the store's reads confirm", "[serve]") {
  serve::ServeOptions o;
  Served s(o);
  // The store (an agent) claims 10 GiB; its reads say the file is 100 bytes.
  s.store->stat_size = 10ull << 30;
  bool closed = false;
  const int fd = connect_to(s.port);
  send_text(fd, "GET " + s.tokened("/run/r/run.tvis") + " HTTP/1.1\r\n" + s.host + "\r\n");
  const std::string r = receive_all(fd, std::chrono::milliseconds(3000), &closed);
  ::close(fd);
  CHECK(closed);                  // the stream stopped at the first piece that disagrees
  CHECK(r.size() < (1u << 20));   // nothing invented
  // Honest sizes: the whole file, 200.
  s.store->stat_size = 100;
  const std::string ok = ask(s.port, s.host, s.tokened("/run/r/run.tvis"));
  CHECK(status_of(ok) == 200);
  CHECK(ok.substr(ok.size() - 100) == std::string(100, 'x'));
}

TEST_CASE("the run list page survives wrong-typed catalog values", "[serve]") {
  const std::string catalog =
      R"([1, "x", null, {"path": 5, "name": [], "argv": "no", "steps": "many", "ranks": "2", "size": -3,)"
      R"( "started_unix_ms": 1e300, "complete": "yes", "rank_files": 7, "script": {}},)"
      R"( {"path": "a/run.tvis", "argv": ["p", 3, "--x"], "ranks": 2, "rank_files": ["a/run.tvis", 9, "a/rank1.tvis"],)"
      R"( "size": 18446744073709551615, "steps": 1.5e30}])";
  std::string page;
  REQUIRE_NOTHROW(page = serve::render_run_list("here", catalog, "t"));
  CHECK(page.find("data-path=\"a/run.tvis\"") != std::string::npos);
  CHECK(page.find("rank_files=run.tvis%2Crank1.tvis") != std::string::npos);
  Served s;
  s.store->catalog = catalog;
  CHECK(status_of(ask(s.port, s.host, s.tokened("/"))) == 200);
}

namespace {

/// One request of any method on a fresh connection ("Connection: close"); the whole answer.
std::string ask_method(int port, const std::string& method, const std::string& head_lines, const std::string& path,
                       const std::string& body = "") {
  const int fd = connect_to(port);
  send_text(fd, method + " " + path + " HTTP/1.1\r\n" + head_lines + "Content-Length: " + std::to_string(body.size()) +
                    "\r\nConnection: close\r\n\r\n" + body);
  std::string r = receive_all(fd);
  ::close(fd);
  return r;
}

bool has_header_line(const std::string& response, const std::string& line) {
  const size_t end = response.find("\r\n\r\n");
  return response.substr(0, end).find("\r\n" + line + "\r\n") != std::string::npos;
}

}  // namespace

TEST_CASE("the token rides in the request itself: a cookie alone is refused, and none is ever set", "[serve]") {
  Served s;
  const std::string cookie = "Cookie: tvis_token_" + std::to_string(s.port) + "=" + s.token + "\r\n";
  CHECK(status_of(ask(s.port, s.host + cookie, "/api/stats")) == 403);
  CHECK(status_of(ask(s.port, s.host + cookie + "Range: bytes=0-9\r\n", "/run/r/run.tvis")) == 403);
  CHECK(status_of(ask(s.port, s.host + "X-Tvis-Token: " + s.token + "\r\nRange: bytes=0-9\r\n", "/run/r/run.tvis")) == 206);
  CHECK(status_of(ask(s.port, s.host + "X-Tvis-Token: x" + s.token + "\r\n", "/api/stats")) == 403);
  const std::string r = ask(s.port, s.host, s.tokened("/"));
  CHECK(status_of(r) == 200);
  CHECK(r.find("Set-Cookie") == std::string::npos);
}

TEST_CASE("a state-changing request needs the token in its header, this origin and a same-origin fetch", "[serve]") {
  std::atomic<int> calls{0};
  serve::ServeOptions o;
  o.routes.push_back({"POST", "/api/setup/save", [&calls](const serve::RouteRequest&) {
                        ++calls;
                        return serve::RouteReply{200, "application/json", "{\"ok\":true}"};
                      }});
  Served s(o);
  const std::string port = std::to_string(s.port);
  const std::string header = "X-Tvis-Token: " + s.token + "\r\n";
  const std::string cookie = "Cookie: tvis_token_" + port + "=" + s.token + "\r\n";
  // What a page on another local port can send: the cookie it used to ride on, the token it lacks.
  CHECK(status_of(ask_method(s.port, "POST", s.host + cookie + "Origin: http://127.0.0.1:1\r\nSec-Fetch-Site: same-site\r\n",
                             "/api/setup/save", "{}")) == 403);
  CHECK(status_of(ask_method(s.port, "POST", s.host + cookie, "/api/setup/save", "{}")) == 403);
  // The token in the query is not enough for a change.
  CHECK(status_of(ask_method(s.port, "POST", s.host, s.tokened("/api/setup/save"), "{}")) == 403);
  // With the token: another origin, or another site's fetch, is still refused.
  const std::string other = ask_method(s.port, "POST", s.host + header + "Origin: http://127.0.0.1:1\r\n", "/api/setup/save", "{}");
  CHECK(status_of(other) == 403);
  CHECK(other.find("another origin") != std::string::npos);
  CHECK(status_of(ask_method(s.port, "POST", s.host + header + "Origin: null\r\n", "/api/setup/save", "{}")) == 403);
  CHECK(status_of(ask_method(s.port, "POST", s.host + header + "Sec-Fetch-Site: same-site\r\n", "/api/setup/save", "{}")) == 403);
  CHECK(status_of(ask_method(s.port, "POST", s.host + header + "Sec-Fetch-Site: cross-site\r\n", "/api/setup/save", "{}")) == 403);
  // A preflight (no custom header in it) is refused: the browser never sends the POST.
  CHECK(status_of(ask_method(s.port, "OPTIONS", s.host + "Origin: http://127.0.0.1:1\r\n", "/api/setup/save")) == 403);
  CHECK(calls == 0);
  // The form's own fetch: header, this origin, same-origin.
  CHECK(status_of(ask_method(s.port, "POST",
                             s.host + header + "Origin: http://127.0.0.1:" + port + "\r\nSec-Fetch-Site: same-origin\r\n",
                             "/api/setup/save", "{}")) == 200);
  CHECK(status_of(ask_method(s.port, "POST", s.host + header, "/api/setup/save", "{}")) == 200);
  CHECK(calls == 2);
}

TEST_CASE("/run/ serves run files only: another file in the served folder is refused unread", "[serve]") {
  Served s;
  for (const char* path : {"/run/notes.txt", "/run/r/secret.key", "/run/.ssh/run.tvis", "/run/r/.claim.tvis", "/run/r/../run.tvis",
                           "/run/r//run.tvis", "/run/.tvis"}) {
    const std::string r = ask(s.port, s.host + "Range: bytes=0-9\r\n", s.tokened(path));
    CHECK(status_of(r) == 403);
    CHECK(r.find("only run files") != std::string::npos);
  }
  CHECK(s.store->reads == 0);
  CHECK(status_of(ask(s.port, s.host + "Range: bytes=0-9\r\n", s.tokened("/run/r/run.tvis"))) == 206);
  CHECK(status_of(ask(s.port, s.host + "Range: bytes=0-9\r\n", s.tokened("/run/r/rank1.tvis"))) == 206);
}

TEST_CASE("every response carries the anti-framing headers, refusals included", "[serve]") {
  Served s;
  const std::string dup = ask(s.port, s.host + "Host: evil.example\r\n", s.tokened("/api/stats"));
  CHECK(status_of(dup) == 400);  // a second Host field
  for (const std::string& r : {ask(s.port, s.host, s.tokened("/api/stats")), ask(s.port, s.host, "/api/stats"),
                               ask(s.port, s.host, s.tokened("/nowhere")), dup}) {
    CHECK(has_header_line(r, "X-Frame-Options: DENY"));
    CHECK(has_header_line(r, "Content-Security-Policy: frame-ancestors 'none'"));
    CHECK(has_header_line(r, "Referrer-Policy: no-referrer"));
  }
}

TEST_CASE("one run served: / opens the viewer on it, the run list stays at /runs", "[serve]") {
  Served s;
  // A run folder (or a run file): one entry, no folder in its path.
  s.store->catalog = R"([{"path": "run.tvis", "name": "20260101-000000_train_ab", "size": 100}])";
  const std::string r = ask(s.port, s.host, s.tokened("/"));
  CHECK(status_of(r) == 303);
  CHECK(has_header_line(r, "Location: /viewer.html?url=run/run.tvis%3Ftoken%3D" + s.token + "&token=" + s.token));
  const std::string list = ask(s.port, s.host, s.tokened("/runs"));
  CHECK(status_of(list) == 200);
  CHECK(list.find("data-path=\"run.tvis\"") != std::string::npos);
  // One launch's rank files: the viewer opens every rank.
  s.store->catalog = R"([{"path": "run.tvis", "ranks": 2, "rank_files": ["run.tvis", "rank1.tvis"]}])";
  const std::string ranks = ask(s.port, s.host, s.tokened("/"));
  CHECK(status_of(ranks) == 303);
  CHECK(ranks.find("&rank_files=run.tvis%2Crank1.tvis") != std::string::npos);
  // A runs folder, even of one run (more may come), and several runs: the list.
  s.store->catalog = R"([{"path": "a/run.tvis"}])";
  CHECK(status_of(ask(s.port, s.host, s.tokened("/"))) == 200);
  s.store->catalog = R"([{"path": "run.tvis"}, {"path": "rank9.tvis"}])";
  CHECK(status_of(ask(s.port, s.host, s.tokened("/"))) == 200);
  // Without the token, no redirect: 403.
  s.store->catalog = R"([{"path": "run.tvis"}])";
  CHECK(status_of(ask(s.port, s.host, "/")) == 403);
}

TEST_CASE("the viewer's program files need no token; nothing else does without one", "[serve]") {
  char dir[] = "/tmp/tvis-web-XXXXXX";
  REQUIRE(::mkdtemp(dir));
  for (const char* f : {"viewer.html", "viewer.js", "viewer.wasm"}) std::ofstream(std::string(dir) + "/" + f) << f;
  serve::ServeOptions o;
  o.web_dir = dir;
  Served s(o);
  CHECK(status_of(ask(s.port, s.host, "/viewer.html")) == 200);
  CHECK(status_of(ask(s.port, s.host, "/viewer.wasm")) == 200);
  CHECK(status_of(ask_method(s.port, "POST", s.host, "/viewer.html")) == 403);
  CHECK(status_of(ask(s.port, s.host, "/runs")) == 403);
  CHECK(status_of(ask(s.port, s.host, "/api/runs")) == 403);
  for (const char* f : {"viewer.html", "viewer.js", "viewer.wasm"}) std::remove((std::string(dir) + "/" + f).c_str());
  ::rmdir(dir);
}
