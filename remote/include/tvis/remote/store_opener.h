// store_opener.h: what a `tvis open` or `tvis-view` argument names, and the
// store that reads it: a saved target (targets.h), HOST:PATH through one ssh
// master and an agent (ssh_session.h, agent_store.h), or a local path
// (run_store.h). Both programs take the same argument and the same
// --via / --remote-tvis / --ssh-config, and so read it the same way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tvis/remote/agent_store.h"
#include "tvis/remote/run_store.h"
#include "tvis/remote/ssh_session.h"

namespace tvis::remote {

struct StoreRequest {
  std::string what;              // LOCAL_PATH | HOST:PATH | TARGET
  std::vector<std::string> via;  // each may be comma-separated; wins over a target's hops
  std::string remote_tvis;       // "" = the target's, else "tvis"
  std::string ssh_config;        // -F FILE
};

/// How `what` is read: Kind::Target when a saved target has that name and it
/// has no ':' or '/', Remote when it has ':', else Local.
struct StoreTarget {
  enum class Kind { Local, Remote, Target } kind = Kind::Local;
  std::string host, path;  // Remote / Target
  std::vector<std::string> via;
  std::string remote_tvis;
  std::string problem;  // the targets file could not be read, or HOST:PATH names no ssh host (ssh_host_problem)
};
StoreTarget classify_store_argument(const std::string& what);

/// An opened store and what keeps it alive. Members are destroyed in
/// reverse order: the store and the agent (its stdin closed: it exits)
/// before the ssh master is closed.
struct OpenedStore {
  std::unique_ptr<SshSession> ssh;     // null for a local path
  std::shared_ptr<AgentStore> agent;   // null for a local path
  std::shared_ptr<RunStore> store;     // the agent, or the local files
  StoreTarget target;
};

/// Opens what `request.what` names. Remote: connects the ssh master (the
/// user's ssh authenticates here), starts the agent and lists once (the
/// agent checks its PATH), so that a failure is one line that says what is
/// wrong, with a --remote-tvis hint when the agent could not start.
Outcome<std::shared_ptr<OpenedStore>> open_store(const StoreRequest& request);

}  // namespace tvis::remote
