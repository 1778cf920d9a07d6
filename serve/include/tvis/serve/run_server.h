// run_server.h: the HTTP server of `tvis open`. Listens on 127.0.0.1 only, on
// a port the kernel picks (http_server.h: bounded heads, deadlines, a worker
// pool idle connections cannot hold), and answers only requests that
//   1. name this server in Host: 127.0.0.1:PORT, localhost:PORT or [::1]:PORT
//      (a page on another site reaching 127.0.0.1 by DNS rebinding sends its
//      own name: 403), and
//   2. carry the session's token in the request itself: `?token=T` in the
//      URL or an `X-Tvis-Token: T` header (the viewer's and the setup
//      form's fetches send it). No cookie: every port of 127.0.0.1 is one
//      site to a browser, so a cookie would reach any local server. A GET of
//      the viewer's program (viewer.html, viewer.js, viewer.wasm: no run
//      data) needs no token.
//   3. for any method but GET and HEAD (a change: the setup form's save and
//      capture): the token in X-Tvis-Token (the query is not enough), an
//      Origin, when sent, of this server, and a Sec-Fetch-Site, when sent,
//      of same-origin.
// All are judged on the request head alone, before any body byte is read
// and before a Range or a route is looked at: anything else is 403 with a
// line saying why.
//
//   GET /                    the run list page (newest first), links open the viewer;
//                            when one run is served (a run file or a run folder:
//                            the catalog is one entry with no folder in its path),
//                            303 to the viewer on that run instead
//   GET /runs                the run list page, always (the viewer links to it)
//   GET /api/runs            the RunStore's catalog (run_catalog.h), JSON
//   GET /api/stats           {"requests", "range_reads", "bytes_served"} plus extra_stats()
//   GET /viewer.html|.js|.wasm   the browser viewer, from `web_dir`
//   GET /run/<path>          bytes of a run file (a name ending in .tvis, no hidden
//                            or parent folder on the way; else 403); Range: bytes=a-b, a-, -n (206),
//                            none (200, whole file), unsatisfiable (416);
//                            a store failure's status comes from its ErrorKind
//                            (status_for_error)
//   routes                   a front end's own (ServeOptions::routes), token-checked the same way
// HEAD is answered for every GET route, without the body.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tvis/remote/run_store.h"

namespace tvis::serve {

/// A request to one of ServeOptions::routes: its query parameters and body.
struct RouteRequest {
  std::map<std::string, std::string> params;
  std::string body;
};

struct RouteReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

/// An exact path answered by a front end (`tvis graph --setup`'s form and
/// its JSON endpoints). Handlers run on the server's threads, one request
/// each, and may take long (a capture): the others keep being served.
struct Route {
  std::string method;  // "GET" or "POST"
  std::string path;    // exact, e.g. "/api/setup/save"
  std::function<RouteReply(const RouteRequest&)> handle;
};

struct ServeOptions {
  std::string web_dir;  // holding viewer.html, viewer.js, viewer.wasm
  std::string token;    // "" = make a random one
  /// Extra members merged into /api/stats (the ssh traffic of a remote store).
  std::function<std::string()> extra_stats;
  std::vector<Route> routes;
  /// Connection limits and deadlines; tests shorten them.
  size_t max_head_bytes = 16 * 1024, max_headers = 64, max_body = 1u << 20;
  int idle_timeout_ms = 5000, head_timeout_ms = 10000, io_timeout_ms = 30000;
  size_t max_connections = 256, workers = 8;
};

/// The HTTP status of a store failure of this kind: Refused 403, NotFound
/// 404, PastEnd 416, TimedOut 504, Unreachable / Malformed / TooLarge 502
/// (the agent failed), Failed 500.
int status_for_error(remote::ErrorKind kind);

class HttpServer;
struct HttpResponse;
struct RunListPage;

/// 32 hex digits from the system's random source.
std::string random_token();

class RunServer {
 public:
  RunServer(std::shared_ptr<remote::RunStore> store, ServeOptions options);
  ~RunServer();

  /// Binds 127.0.0.1 on a free port and starts serving on its own threads.
  remote::Outcome<int> start();
  /// http://127.0.0.1:<port>/?token=<token>
  std::string url() const;
  /// http://127.0.0.1:<port><path>?token=<token>[&<query>]
  std::string url(const std::string& path, const std::string& query) const;
  /// Stops accepting, finishes, joins.
  void stop();

 private:
  std::shared_ptr<const RunListPage> run_list_page();
  void serve_run(const std::string& path, const std::string& range_header, HttpResponse* res);

  std::shared_ptr<remote::RunStore> store_;
  ServeOptions options_;
  std::unique_ptr<HttpServer> http_;
  int port_ = 0;
  std::atomic<uint64_t> requests_{0}, range_reads_{0}, bytes_served_{0};
  std::mutex page_mu_;  // guards the cache of the last run list page
  std::string cached_list_;
  std::shared_ptr<const RunListPage> cached_page_;
};

}  // namespace tvis::serve
