#include "tvis/serve/run_server.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "byte_range.h"
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

std::string cookie_value(const std::string& header, const std::string& name) {
  size_t at = 0;
  while (at < header.size()) {
    size_t end = header.find(';', at);
    if (end == std::string::npos) end = header.size();
    std::string part = header.substr(at, end - at);
    while (!part.empty() && part.front() == ' ') part.erase(0, 1);
    if (part.rfind(name + "=", 0) == 0) return part.substr(name.size() + 1);
    at = end + 1;
  }
  return "";
}

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

/// 403 for a path the store refuses, 404 for one it lacks, 502 otherwise
/// (the agent or its connection failed).
int status_for(const std::string& error) {
  if (error.find("lost") != std::string::npos || error.find("could not be started") != std::string::npos) return 502;
  if (error.find("escapes") != std::string::npos || error.find("refused") != std::string::npos ||
      error.find("only ") == 0)
    return 403;
  if (error.find("no such") == 0) return 404;
  return 502;
}

}  // namespace

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
    : store_(std::move(store)), options_(std::move(options)), http_(std::make_unique<httplib::Server>()) {
  if (options_.token.empty()) options_.token = random_token();
}

RunServer::~RunServer() { stop(); }

std::string RunServer::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/?token=" + options_.token; }

std::string RunServer::url(const std::string& path, const std::string& query) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path + "?token=" + options_.token + (query.empty() ? "" : "&" + query);
}

remote::Outcome<int> RunServer::start() {
  if (options_.token == std::string(32, '0')) return remote::Outcome<int>::bad("no random source for the session token");
  install_routes();
  // The viewer reads a run as many small ranges: keep its connections open
  // (httplib's default closes one every 5 requests).
  http_->set_keep_alive_max_count(1000);
  http_->set_keep_alive_timeout(30);
  port_ = http_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) return remote::Outcome<int>::bad("cannot listen on 127.0.0.1");
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  return remote::Outcome<int>::good(port_);
}

void RunServer::stop() {
  if (thread_.joinable()) {
    http_->stop();
    thread_.join();
  }
}

std::string RunServer::run_list_page() {
  auto list = store_->list();
  if (!list.ok)
    return "<!doctype html><html><body><h1>tvis</h1><p id=\"tvis-error\">" + html_escape(list.error) + "</p></body></html>\n";
  return render_run_list(store_->describe(), list.value, options_.token);
}

void RunServer::install_routes() {
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    ++requests_;
    const std::string name = "tvis_token_" + std::to_string(port_);  // cookies are per host, not per port
    const std::string given = req.get_param_value("token");
    if (same_token(given, options_.token)) {
      res.set_header("Set-Cookie", name + "=" + options_.token + "; Path=/; HttpOnly; SameSite=Strict");
      return httplib::Server::HandlerResponse::Unhandled;
    }
    if (given.empty() && same_token(cookie_value(req.get_header_value("Cookie"), name), options_.token))
      return httplib::Server::HandlerResponse::Unhandled;
    res.status = 403;
    res.set_content(given.empty() ? "tvis open: this server needs its session token: open the URL tvis open printed (…?token=…)\n"
                                  : "tvis open: wrong token: open the URL tvis open printed\n",
                    "text/plain; charset=utf-8");
    return httplib::Server::HandlerResponse::Handled;
  });

  http_->Get("/", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(run_list_page(), "text/html; charset=utf-8");
  });
  http_->Get("/api/runs", [this](const httplib::Request&, httplib::Response& res) {
    auto list = store_->list();
    if (!list.ok) {
      res.status = 502;
      res.set_content(nlohmann::json{{"error", list.error}}.dump(), "application/json");
      return;
    }
    res.set_content(list.value, "application/json");
  });
  http_->Get("/api/stats", [this](const httplib::Request&, httplib::Response& res) {
    nlohmann::json j = {{"requests", requests_.load()}, {"range_reads", range_reads_.load()}, {"bytes_served", bytes_served_.load()}};
    if (options_.extra_stats) {
      const auto extra = nlohmann::json::parse(options_.extra_stats(), nullptr, false);
      if (extra.is_object()) j.update(extra);
    }
    res.set_content(j.dump(), "application/json");
  });
  for (const auto& [file, type] : {std::pair<std::string, std::string>{"viewer.html", "text/html; charset=utf-8"},
                                   {"viewer.js", "application/javascript"},
                                   {"viewer.wasm", "application/wasm"}}) {
    http_->Get("/" + file, [this, file = file, type = type](const httplib::Request&, httplib::Response& res) {
      std::string body;
      if (!read_file(options_.web_dir + "/" + file, &body)) {
        res.status = 404;
        res.set_content("tvis open: " + options_.web_dir + "/" + file + " is missing (build the viewer: tools/bootstrap)\n",
                        "text/plain; charset=utf-8");
        return;
      }
      res.set_header("Cache-Control", "no-cache");
      res.set_content(std::move(body), type);
    });
  }

  for (const auto& route : options_.routes) {
    auto handler = [handle = route.handle](const httplib::Request& req, httplib::Response& res) {
      RouteRequest r;
      for (const auto& [k, v] : req.params)
        if (k != "token") r.params[k] = v;
      r.body = req.body;
      const RouteReply reply = handle(r);
      res.status = reply.status;
      res.set_header("Cache-Control", "no-store");
      res.set_content(reply.body, reply.content_type);
    };
    if (route.method == "POST") http_->Post(route.path, handler);
    else http_->Get(route.path, handler);
  }

  http_->Get(R"(/run/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string path = req.matches[1];
    const ByteRange range = parse_range_header(req.get_header_value("Range"));
    // We answer ranges ourselves; httplib would slice the body a second time.
    const_cast<httplib::Request&>(req).ranges.clear();
    auto fail = [&](int status, const std::string& why) {
      res.status = status;
      res.set_content("tvis open: " + why + "\n", "text/plain; charset=utf-8");
    };
    if (range.kind == ByteRange::Kind::Invalid) return fail(416, "unsupported Range header: " + req.get_header_value("Range"));
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
      } else if (r.error.find("past the end") == std::string::npos) {
        return fail(status_for(r.error), r.error);  // not a range past the end: nothing to retry
      }
    }
    if (!have_first) {
      auto st = store_->stat(path);
      if (!st.ok) return fail(status_for(st.error), st.error);
      size = st.value.size;
    }
    if (!resolve_range(range, size, &offset, &length)) {
      res.status = 416;
      res.set_header("Content-Range", "bytes */" + std::to_string(size));
      return;
    }
    ++range_reads_;
    if (have_first && first_bytes.size() != length) have_first = false;
    if (!have_first && length <= kPiece) {
      auto r = store_->read(path, offset, uint32_t(length));
      if (!r.ok) return fail(status_for(r.error), r.error);
      first_bytes = std::move(r.value.bytes);
      have_first = true;
    }
    if (range.kind != ByteRange::Kind::None) {
      res.status = 206;
      res.set_header("Content-Range", "bytes " + std::to_string(offset) + "-" + std::to_string(offset + length - 1) + "/" +
                                          std::to_string(size));
    }
    res.set_header("Accept-Ranges", "bytes");
    res.set_header("Cache-Control", "no-store");
    if (have_first) {
      bytes_served_ += first_bytes.size();
      res.set_content(std::move(first_bytes), "application/octet-stream");
      return;
    }
    // A big answer (the whole file without Range): streamed in pieces.
    auto store = store_;
    res.set_content_provider(size_t(length), "application/octet-stream",
                             [this, store, path, offset](size_t at, size_t want, httplib::DataSink& sink) {
                               const uint64_t n = want < kPiece ? want : kPiece;
                               auto r = store->read(path, offset + at, uint32_t(n));
                               if (!r.ok) return false;
                               bytes_served_ += r.value.bytes.size();
                               return sink.write(r.value.bytes.data(), r.value.bytes.size());
                             });
  });
}

}  // namespace tvis::serve
