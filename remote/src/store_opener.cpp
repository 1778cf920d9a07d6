#include "tvis/remote/store_opener.h"

#include "tvis/remote/targets.h"

namespace tvis::remote {

namespace {

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

SshTarget ssh_target_of(const StoreTarget& target, const StoreRequest& request) {
  SshTarget st;
  st.host = target.host;
  st.path = target.path;
  st.via = split_commas(request.via.empty() ? target.via : request.via);
  st.remote_tvis = !request.remote_tvis.empty() ? request.remote_tvis
                   : !target.remote_tvis.empty() ? target.remote_tvis
                                                 : "tvis";
  st.ssh_config = request.ssh_config;
  return st;
}

// The hint added to "the agent could not be started".
std::string start_hint(const SshTarget& st) {
  return st.remote_tvis == "tvis"
             ? " (is tvis on the remote's non-interactive PATH? if not, pass --remote-tvis /path/to/tvis)"
             : " (is " + st.remote_tvis + " a tvis on " + st.host + "? pass the right one with --remote-tvis)";
}

Outcome<std::shared_ptr<OpenedStore>> open_remote(std::shared_ptr<OpenedStore> opened, const StoreRequest& request) {
  using Failed = Outcome<std::shared_ptr<OpenedStore>>;
  const SshTarget st = ssh_target_of(opened->target, request);
  opened->ssh = std::make_unique<SshSession>(st);
  auto up = opened->ssh->connect();
  if (!up.ok) return Failed::bad(up.error);
  SshSession* session = opened->ssh.get();
  opened->agent = std::make_shared<AgentStore>(
      [session]() -> Outcome<std::vector<std::string>> {
        if (!session->master_alive()) {
          auto again = session->connect();
          if (!again.ok) return Outcome<std::vector<std::string>>::bad(again.error);
        }
        return Outcome<std::vector<std::string>>::good(session->agent_argv());
      },
      session->describe(), start_hint(st));
  auto c = opened->agent->connect();
  if (!c.ok) return Failed::bad(c.error);
  auto list = opened->agent->list();
  if (!list.ok) return Failed::bad(session->describe() + ": " + list.error);
  opened->store = opened->agent;
  return Failed::good(std::move(opened));
}

}  // namespace

StoreTarget classify_store_argument(const std::string& what) {
  StoreTarget t;
  if (what.find(':') == std::string::npos && what.find('/') == std::string::npos && valid_target_name(what)) {
    auto targets = load_targets(targets_file());
    if (!targets.ok) {
      t.problem = targets.error;
      return t;
    }
    auto it = targets.value.find(what);
    if (it != targets.value.end()) {
      t.kind = StoreTarget::Kind::Target;
      t.host = it->second.host;
      t.path = it->second.path;
      t.via = it->second.via;
      t.remote_tvis = it->second.remote_tvis;
      return t;
    }
  }
  const size_t colon = what.find(':');
  if (colon != std::string::npos) {
    t.kind = StoreTarget::Kind::Remote;
    t.host = what.substr(0, colon);
    t.path = what.substr(colon + 1);
    if (t.path.empty()) t.path = ".";
    std::string why = ssh_host_problem(t.host);
    if (why.empty() && !(why = remote_word_problem(t.path)).empty()) why = "the path " + why;
    if (!why.empty()) t.problem = "'" + what.substr(0, 120) + "' is not HOST:PATH: " + why;
  }
  return t;
}

Outcome<std::shared_ptr<OpenedStore>> open_store(const StoreRequest& request) {
  using Failed = Outcome<std::shared_ptr<OpenedStore>>;
  auto opened = std::make_shared<OpenedStore>();
  opened->target = classify_store_argument(request.what);
  if (!opened->target.problem.empty()) return Failed::bad(opened->target.problem);
  if (opened->target.kind != StoreTarget::Kind::Local) return open_remote(std::move(opened), request);
  if (!request.via.empty() || !request.remote_tvis.empty())
    return Failed::bad("--via and --remote-tvis apply to HOST:PATH or a saved target, not the local path " + request.what);
  auto local = open_local_store(request.what);
  if (!local.ok)
    return Failed::bad(local.error + (valid_target_name(request.what) ? " (nor a saved target: see tvis target list)" : ""));
  opened->store = local.value;
  return Failed::good(std::move(opened));
}

}  // namespace tvis::remote
