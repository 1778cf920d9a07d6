#include "open_session.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <nlohmann/json.hpp>

#include "browser_handoff.h"
#include "tvis/process/spawn.h"
#include "tvis/remote/store_opener.h"
#include "tvis/serve/run_server.h"
#include "web_dir.h"

namespace tvis::cli {

namespace {

int fail(const std::string& why) {
  std::fprintf(stderr, "tvis open: %s\n", why.c_str());
  return 2;
}

}  // namespace

serve::Route freshness_route(std::shared_ptr<remote::RunStore> store, RunFreshness freshness) {
  return {"GET", "/api/freshness", [store, freshness](const serve::RouteRequest& q) {
            auto unchecked = [](const std::string& why) {
              return serve::RouteReply{200, "application/json",
                                       nlohmann::json{{"checked", false}, {"stale", false}, {"reasons", nlohmann::json::array()},
                                                      {"why", why}}
                                           .dump()};
            };
            const auto run = q.params.find("run");
            if (run == q.params.end() || run->second.empty())
              return serve::RouteReply{400, "application/json", nlohmann::json{{"error", "run=PATH is missing"}}.dump()};
            if (!freshness) return unchecked("this server does not recheck files");
            auto file = store->local_file(run->second);
            if (!file.ok) return unchecked(file.error);
            return serve::RouteReply{200, "application/json", freshness(file.value)};
          }};
}

void open_browser(const std::string& url) {
  const char* env = std::getenv("BROWSER");
#ifdef __APPLE__
  const std::string program = env && *env ? env : "open";
#else
  const std::string program = env && *env ? env : "xdg-open";
#endif
  tvis::process::SpawnOptions o;
  o.argv = {program, url};
  o.out = o.err = tvis::process::Stdio::Null;
  o.detached = true;  // the browser is not our child: nothing to reap
  tvis::process::spawn(o);  // a browser that cannot start leaves the printed URL to the user
}

sigset_t block_stop_signals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return stop_signals;
}

int run_open(const OpenRequest& request) {
  std::string error;
  const std::string web_dir = find_web_dir(&error);
  if (web_dir.empty()) return fail(error);

  // SIGINT/SIGTERM are waited for below; blocked before any thread starts
  // so that every thread inherits the mask and none is interrupted.
  sigset_t stop_signals = block_stop_signals();

  remote::StoreRequest wanted{request.what, request.via, request.remote_tvis, request.ssh_config};
  auto opened = remote::open_store(wanted);
  if (!opened.ok) return fail(opened.error);
  std::shared_ptr<remote::RunStore> store = opened.value->store;
  std::shared_ptr<remote::AgentStore> agent = opened.value->agent;

  serve::ServeOptions options;
  options.web_dir = web_dir;
  options.routes.push_back(freshness_route(store, request.freshness));
  if (agent) {
    options.extra_stats = [agent] {
      const auto t = agent->traffic();
      return nlohmann::json{{"agent", {{"bytes_sent", t.sent},
                                       {"bytes_received", t.received},
                                       {"connections", t.connections},
                                       {"requests", t.requests},
                                       {"pid", agent->agent_pid()}}}}
          .dump();
    };
  }
  serve::RunServer server(store, options);
  auto started = server.start();
  if (!started.ok) return fail(started.error);
  std::printf("%s\n", server.url().c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "tvis open: serving %s with the viewer in %s; Ctrl-C stops\n", store->describe().c_str(),
               web_dir.c_str());
  std::unique_ptr<BrowserHandoff> handoff;  // the page stays while the server runs
  if (!request.no_browser) {
    handoff = std::make_unique<BrowserHandoff>(server.url());
    if (handoff->ok()) open_browser(handoff->page());
    else std::fprintf(stderr, "tvis open: no browser started (%s); open the URL above\n", handoff->error().c_str());
  }

  int sig = 0;
  sigwait(&stop_signals, &sig);
  server.stop();
  store.reset();
  agent.reset();
  opened.value.reset();  // the agent's stdin closed (it exits), then the ssh master
  std::fprintf(stderr, "tvis open: stopped\n");
  return 0;
}

}  // namespace tvis::cli
