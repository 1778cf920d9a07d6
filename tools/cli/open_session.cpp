#include "open_session.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <nlohmann/json.hpp>

#include "tvis/remote/agent_store.h"
#include "tvis/remote/run_store.h"
#include "tvis/remote/ssh_session.h"
#include "tvis/remote/targets.h"
#include "tvis/serve/run_server.h"
#include "web_dir.h"

namespace tvis::cli {

namespace {

int fail(const std::string& why) {
  std::fprintf(stderr, "tvis open: %s\n", why.c_str());
  return 2;
}

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    size_t at = 0;
    while (at <= item.size()) {
      size_t end = item.find(',', at);
      if (end == std::string::npos) end = item.size();
      if (end > at) out.push_back(item.substr(at, end - at));
      at = end + 1;
    }
  }
  return out;
}

}  // namespace

void open_browser(const std::string& url) {
  const char* env = std::getenv("BROWSER");
#ifdef __APPLE__
  const std::string program = env && *env ? env : "open";
#else
  const std::string program = env && *env ? env : "xdg-open";
#endif
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::fork() != 0) ::_exit(0);  // the browser is not our child: nothing to reap
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execlp(program.c_str(), program.c_str(), url.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (pid > 0) ::waitpid(pid, nullptr, 0);
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

OpenTarget classify_open_argument(const std::string& what) {
  OpenTarget t;
  if (what.find(':') == std::string::npos && what.find('/') == std::string::npos && remote::valid_target_name(what)) {
    auto targets = remote::load_targets(remote::targets_file());
    if (!targets.ok) {
      t.problem = targets.error;
      return t;
    }
    auto it = targets.value.find(what);
    if (it != targets.value.end()) {
      t.kind = OpenTarget::Kind::Target;
      t.host = it->second.host;
      t.path = it->second.path;
      t.via = it->second.via;
      t.remote_tvis = it->second.remote_tvis;
      return t;
    }
  }
  const size_t colon = what.find(':');
  if (colon != std::string::npos) {
    t.kind = OpenTarget::Kind::Remote;
    t.host = what.substr(0, colon);
    t.path = what.substr(colon + 1);
    if (t.path.empty()) t.path = ".";
  }
  return t;
}

int run_open(const OpenRequest& request) {
  const OpenTarget target = classify_open_argument(request.what);
  if (!target.problem.empty()) return fail(target.problem);
  std::string error;
  const std::string web_dir = find_web_dir(&error);
  if (web_dir.empty()) return fail(error);

  // SIGINT/SIGTERM are waited for below; blocked before any thread starts
  // so that every thread inherits the mask and none is interrupted.
  sigset_t stop_signals = block_stop_signals();

  std::unique_ptr<remote::SshSession> ssh;
  std::shared_ptr<remote::RunStore> store;
  std::shared_ptr<remote::AgentStore> agent;
  if (target.kind == OpenTarget::Kind::Local) {
    if (!request.via.empty() || !request.remote_tvis.empty())
      return fail("--via and --remote-tvis apply to HOST:PATH or a saved target, not the local path " + request.what);
    auto local = remote::open_local_store(request.what);
    if (!local.ok)
      return fail(local.error + (remote::valid_target_name(request.what) ? " (nor a saved target: see tvis target list)" : ""));
    store = local.value;
  } else {
    remote::SshTarget st;
    st.host = target.host;
    st.path = target.path;
    st.via = split_commas(target.via);
    if (!request.via.empty()) st.via = split_commas(request.via);  // the command line wins over a target's hops
    st.remote_tvis = !request.remote_tvis.empty() ? request.remote_tvis : !target.remote_tvis.empty() ? target.remote_tvis : "tvis";
    st.ssh_config = request.ssh_config;
    ssh = std::make_unique<remote::SshSession>(st);
    auto up = ssh->connect();
    if (!up.ok) return fail(up.error);
    remote::SshSession* session = ssh.get();
    const std::string hint = st.remote_tvis == "tvis"
                                 ? " (is tvis on the remote's non-interactive PATH? if not, pass --remote-tvis /path/to/tvis)"
                                 : " (is " + st.remote_tvis + " a tvis on " + st.host + "? pass the right one with --remote-tvis)";
    agent = std::make_shared<remote::AgentStore>(
        [session]() -> remote::Outcome<std::vector<std::string>> {
          if (!session->master_alive()) {
            auto again = session->connect();
            if (!again.ok) return remote::Outcome<std::vector<std::string>>::bad(again.error);
          }
          return remote::Outcome<std::vector<std::string>>::good(session->agent_argv());
        },
        session->describe(), hint);
    auto c = agent->connect();
    if (!c.ok) return fail(c.error);
    auto list = agent->list();  // the agent checks its PATH here
    if (!list.ok) return fail(session->describe() + ": " + list.error);
    store = agent;
  }

  serve::ServeOptions options;
  options.web_dir = web_dir;
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
  std::fprintf(stderr, "tvis open: serving %s; Ctrl-C stops\n", store->describe().c_str());
  if (!request.no_browser) open_browser(server.url());

  int sig = 0;
  sigwait(&stop_signals, &sig);
  server.stop();
  store.reset();
  agent.reset();  // closes the agent's stdin: it exits
  if (ssh) ssh->close();
  std::fprintf(stderr, "tvis open: stopped\n");
  return 0;
}

}  // namespace tvis::cli
