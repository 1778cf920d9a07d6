#include "tvis/serve/run_server.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "byte_range.h"
#include "tvis/json/safe.h"
#include "http_server.h"
#include "run_list_page.h"

namespace tvis::serve {

namespace {

/// The body size one response may hold before it is streamed in pieces.
constexpr uint64_t kPiece = 4u << 20;

bool same_token(const std::string& a, const std::string& b) {
  if (a.size() != b.size() || a.empty()) return false;
  unsigned char diff = 0;  // no early exit: the time does not tell how much matched
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

/// The viewer's program files: the same for every user, no run data in them;
/// served without the token (viewer.html's <script src> and Emscripten's
/// fetch of the wasm cannot carry one). Everything else needs it.
bool is_viewer_file(const std::string& path) {
  return path == "/viewer.html" || path == "/viewer.js" || path == "/viewer.wasm";
}

/// What /run/ serves: a run file (its name ends in ".tvis") reached through
/// no hidden folder or file (".x", "..": a launch's claim, a parent).
bool is_run_file_path(const std::string& path) {
  if (path.size() < 6 || path.compare(path.size() - 5, 5, ".tvis") != 0) return false;
  size_t at = 0;
  while (at <= path.size()) {
    size_t end = path.find('/', at);
    if (end == std::string::npos) end = path.size();
    if (end == at || path[at] == '.') return false;
    at = end + 1;
  }
  return true;
}

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return s;
}

}  // namespace

int status_for_error(remote::ErrorKind kind) {
  using K = remote::ErrorKind;
  switch (kind) {
    case K::Refused: return 403;
    case K::NotFound: return 404;
    case K::PastEnd: return 416;
    case K::TimedOut: return 504;
    case K::Unreachable:
    case K::Malformed:
    case K::TooLarge: return 502;
    case K::Failed: return 500;
  }
  return 500;
}

std::string random_token() {
  unsigned char bytes[16] = {};
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (::read(fd, bytes, sizeof bytes) != ssize_t(sizeof bytes)) {
      // leave zeros; start() refuses an all-zero token below
    }
    ::close(fd);
  }
  static const char* hex = "0123456789abcdef";
  std::string t;
  for (unsigned char b : bytes) {
    t += hex[b >> 4];
    t += hex[b & 15];
  }
  return t;
}

RunServer::RunServer(std::shared_ptr<remote::RunStore> store, ServeOptions options)
    : store_(std::move(store)), options_(std::move(options)) {
  if (options_.token.empty()) options_.token = random_token();
}

RunServer::~RunServer() { stop(); }

std::string RunServer::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/?token=" + options_.token; }

std::string RunServer::url(const std::string& path, const std::string& query) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path + "?token=" + options_.token + (query.empty() ? "" : "&" + query);
}

remote::Outcome<int> RunServer::start() {
  if (options_.token == std::string(32, '0')) return remote::Outcome<int>::bad("no random source for the session token");
  HttpLimits limits;
  limits.head.max_head_bytes = options_.max_head_bytes;
  limits.head.max_headers = options_.max_headers;
  limits.max_body = options_.max_body;
  limits.idle_timeout = std::chrono::milliseconds(options_.idle_timeout_ms);
  limits.head_timeout = std::chrono::milliseconds(options_.head_timeout_ms);
  limits.io_timeout = std::chrono::milliseconds(options_.io_timeout_ms);
  limits.max_connections = options_.max_connections;
  limits.workers = options_.workers;

  // The gate: on the I/O thread, on the head alone.
  auto gate = [this](const RequestHead& head, HttpResponse* refusal) {
    ++requests_;
    const std::string port = std::to_string(port_);
    const std::string host = lower(head.header("host"));
    if (host != "127.0.0.1:" + port && host != "localhost:" + port && host != "[::1]:" + port) {
      refusal->text(403, "tvis open: this server answers only requests for 127.0.0.1:" + port + " or localhost:" + port +
                             " (Host was '" + head.header("host").substr(0, 200) + "')\n");
      return false;
    }
    const bool get = head.method == "GET" || head.method == "HEAD";
    if (get && is_viewer_file(head.path)) return true;
    const std::string in_header = head.header("x-tvis-token");
    if (!get) {
      // A request that changes something (the setup form's save and
      // capture): every local port is the same site, so only a same-origin
      // page that holds the token may send it, in a header (which a
      // cross-origin page cannot add without a preflight, refused here).
      const std::string origin = lower(head.header("origin"));
      if (!origin.empty() && origin != "http://127.0.0.1:" + port && origin != "http://localhost:" + port &&
          origin != "http://[::1]:" + port) {
        refusal->text(403, "tvis open: a request from another origin (" + head.header("origin").substr(0, 200) + ") is refused\n");
        return false;
      }
      const std::string site = lower(head.header("sec-fetch-site"));
      if (!site.empty() && site != "same-origin") {
        refusal->text(403, "tvis open: a " + head.method.substr(0, 20) + " from another site (Sec-Fetch-Site: " + site.substr(0, 40) +
                               ") is refused\n");
        return false;
      }
      if (same_token(in_header, options_.token)) return true;
      refusal->text(403, "tvis open: a " + head.method.substr(0, 20) +
                             " needs the session token in its X-Tvis-Token header (the page tvis open printed sends it)\n");
      return false;
    }
    const auto given_it = head.params.find("token");
    const std::string given = given_it != head.params.end() ? given_it->second : in_header;
    if (same_token(given, options_.token)) return true;
    refusal->text(403, given.empty() ? "tvis open: this server needs its session token: open the URL tvis open printed (…?token=…)\n"
                                     : "tvis open: wrong token: open the URL tvis open printed\n");
    return false;
  };

  auto handler = [this](const HttpRequest& req, HttpResponse* res) {
    const RequestHead& h = req.head;
    const bool get = h.method == "GET" || h.method == "HEAD";
    for (const auto& route : options_.routes) {
      if (route.path != h.path) continue;
      if (!(route.method == h.method || (route.method == "GET" && h.method == "HEAD"))) continue;
      RouteRequest r;
      for (const auto& [k, v] : h.params)
        if (k != "token") r.params[k] = v;
      r.body = req.body;
      const RouteReply reply = route.handle(r);
      res->status = reply.status;
      res->headers.emplace_back("Cache-Control", "no-store");
      res->content_type = reply.content_type;
      res->body = reply.body;
      return;
    }
    if (!get) return res->text(405, "tvis open: " + h.method + " is not served here\n");
    if (h.path == "/" || h.path == "/runs") {
      const auto page_ptr = run_list_page();
      const RunListPage& page = *page_ptr;
      if (h.path == "/" && !page.single_run_href.empty()) {  // one run served: the viewer on it
        res->status = 303;
        res->headers.emplace_back("Location", "/" + page.single_run_href);
        res->headers.emplace_back("Cache-Control", "no-store");
        res->content_type = "text/html; charset=utf-8";
        res->body = "<!doctype html><a href=\"" + html_escape("/" + page.single_run_href) + "\">Open the run</a>\n";
        return;
      }
      res->headers.emplace_back("Cache-Control", "no-store");
      res->content_type = "text/html; charset=utf-8";
      res->body = page.html;
      return;
    }
    if (h.path == "/api/runs") {
      auto list = store_->list();
      res->content_type = "application/json";
      if (!list.ok) {
        res->status = status_for_error(list.kind);
        res->body = safe_json::text(nlohmann::json{{"error", list.error}});
        return;
      }
      res->body = std::move(list.value);
      return;
    }
    if (h.path == "/api/stats") {
      nlohmann::json j = {{"requests", requests_.load()}, {"range_reads", range_reads_.load()}, {"bytes_served", bytes_served_.load()}};
      if (options_.extra_stats) {
        const auto extra = nlohmann::json::parse(options_.extra_stats(), nullptr, false);
        if (extra.is_object()) j.update(extra);
      }
      res->content_type = "application/json";
      res->body = safe_json::text(j);
      return;
    }
    for (const auto& [file, type] : {std::pair<const char*, const char*>{"viewer.html", "text/html; charset=utf-8"},
                                     {"viewer.js", "application/javascript"},
                                     {"viewer.wasm", "application/wasm"}}) {
      if (h.path != std::string("/") + file) continue;
      std::string body;
      if (!read_file(options_.web_dir + "/" + file, &body))
        return res->text(404, "tvis open: " + options_.web_dir + "/" + file + " is missing (build the viewer: tools/bootstrap)\n");
      res->headers.emplace_back("Cache-Control", "no-cache");
      res->content_type = type;
      res->body = std::move(body);
      return;
    }
    if (h.path.rfind("/run/", 0) == 0 && h.path.size() > 5) {
      const std::string path = h.path.substr(5);
      if (!is_run_file_path(path))
        return res->text(403, "tvis open: refused: only run files (*.tvis, no hidden or parent folder) are served, not " +
                                  path.substr(0, 200) + "\n");
      return serve_run(path, h.header("range"), res);
    }
    res->text(404, "tvis open: no such page: " + h.path.substr(0, 200) + "\n");
  };

  http_ = std::make_unique<HttpServer>(limits, gate, handler);
  port_ = http_->listen_loopback();
  if (port_ <= 0) return remote::Outcome<int>::bad("cannot listen on 127.0.0.1");
  http_->start();
  return remote::Outcome<int>::good(port_);
}

void RunServer::stop() {
  if (http_) http_->stop();
}

std::shared_ptr<const RunListPage> RunServer::run_list_page() {
  auto list = store_->list();
  if (!list.ok) {
    auto failed = std::make_shared<RunListPage>();
    failed->html = "<!doctype html><html><body><h1>tvis</h1><p id=\"tvis-error\">" + html_escape(list.error) + "</p></body></html>\n";
    return failed;
  }
  // One parse per distinct answer, one at a time: page loads of an
  // unchanged (or a hostile, large) list cost a comparison.
  std::lock_guard<std::mutex> lock(page_mu_);
  if (!cached_page_ || list.value != cached_list_) {
    cached_page_.reset();
    cached_page_ = std::make_shared<const RunListPage>(render_run_list_page(store_->describe(), list.value, options_.token));
    cached_list_ = std::move(list.value);
  }
  return cached_page_;
}

void RunServer::serve_run(const std::string& path, const std::string& range_header, HttpResponse* res) {
  const ByteRange range = parse_range_header(range_header);
  auto fail = [&](int status, const std::string& why) { res->text(status, "tvis open: " + why + "\n"); };
  if (range.kind == ByteRange::Kind::Invalid) return fail(416, "unsupported Range header: " + range_header.substr(0, 200));
  uint64_t size = 0, offset = 0, length = 0;
  std::string first_bytes;
  bool have_first = false;
  if (range.kind == ByteRange::Kind::FromTo && range.last - range.first < kPiece) {
    // The common case: one round trip; the reply also says the file's size.
    auto r = store_->read(path, range.first, uint32_t(range.last - range.first + 1));
    if (r.ok) {
      size = r.value.file_size;
      first_bytes = std::move(r.value.bytes);
      have_first = true;
    } else if (r.kind != remote::ErrorKind::PastEnd) {
      return fail(status_for_error(r.kind), r.error);  // not a range past the end: nothing to retry
    }
  }
  if (!have_first) {
    auto st = store_->stat(path);
    if (!st.ok) return fail(status_for_error(st.kind), st.error);
    size = st.value.size;
  }
  if (!resolve_range(range, size, &offset, &length)) {
    res->status = 416;
    res->headers.emplace_back("Content-Range", "bytes */" + std::to_string(size));
    return;
  }
  ++range_reads_;
  if (have_first && first_bytes.size() != length) have_first = false;
  if (!have_first && length <= kPiece) {
    auto r = store_->read(path, offset, uint32_t(length));
    if (!r.ok) return fail(status_for_error(r.kind), r.error);
    first_bytes = std::move(r.value.bytes);
    have_first = true;
  }
  if (range.kind != ByteRange::Kind::None) {
    res->status = 206;
    res->headers.emplace_back("Content-Range", "bytes " + std::to_string(offset) + "-" + std::to_string(offset + length - 1) + "/" +
                                                   std::to_string(size));
  }
  res->headers.emplace_back("Accept-Ranges", "bytes");
  res->headers.emplace_back("Cache-Control", "no-store");
  res->content_type = "application/octet-stream";
  if (have_first) {
    bytes_served_ += first_bytes.size();
    res->body = std::move(first_bytes);
    return;
  }
  // A big answer (the whole file without Range): streamed in pieces. The
  // size was the store's word (an agent's): every piece must come from a
  // file of that same size, whole, or the stream stops (the connection
  // closes short of the promised length: the client sees the failure).
  auto store = store_;
  res->stream_length = length;
  res->stream = [this, store, path, offset, size, length](uint64_t at, std::string* piece) {
    const uint64_t n = length - at < kPiece ? length - at : kPiece;
    auto r = store->read(path, offset + at, uint32_t(n));
    if (!r.ok || r.value.file_size != size || r.value.bytes.size() != n) return false;
    bytes_served_ += r.value.bytes.size();
    *piece = std::move(r.value.bytes);
    return true;
  };
}

}  // namespace tvis::serve
