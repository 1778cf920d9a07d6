// open_session.h: `tvis open` (docs/cli.md): the store its argument names
// (remote/store_opener.h: a saved target, HOST:PATH, or a local path), the
// HTTP server over it, the printed URL and the browser, until SIGINT or SIGTERM.
#pragma once

#include <signal.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tvis/serve/run_server.h"

namespace tvis::remote {
class RunStore;
}

namespace tvis::cli {

/// {checked, stale, reasons} of a run file on this machine (a profile
/// capture's recorded evidence rechecked; checked false for other runs).
using RunFreshness = std::function<std::string(const std::string& run_file)>;

struct OpenRequest {
  std::string what;              // LOCAL_PATH | HOST:PATH | TARGET
  bool no_browser = false;
  std::vector<std::string> via;  // each may be comma-separated
  std::string remote_tvis;       // "" = the target's or "tvis"
  std::string ssh_config;        // -F FILE
  RunFreshness freshness;        // null: /api/freshness answers "not checked"
};

/// GET /api/freshness?run=PATH (PATH as in /run/PATH): `freshness` of the
/// store's run file, so the browser's Graph page shows a stale capture as
/// tvis-view does. A store whose files are elsewhere (an agent's), a path
/// the store refuses, or no `freshness` answer {checked: false, why}.
serve::Route freshness_route(std::shared_ptr<remote::RunStore> store, RunFreshness freshness);

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (call it before
/// any thread starts, so every thread inherits the mask) and ignores
/// SIGPIPE; sigwait() on the returned set waits for the stop.
sigset_t block_stop_signals();

/// Starts the user's browser on `url` without waiting for it: $BROWSER,
/// else xdg-open (open on macOS). Its output goes nowhere. `url` is on the
/// browser's command line: never a URL with a token (see browser_handoff.h).
void open_browser(const std::string& url);

/// Runs the session; the process exit code (0 after SIGINT/SIGTERM, 2 when
/// it cannot start: one line on stderr).
int run_open(const OpenRequest& request);

}  // namespace tvis::cli
