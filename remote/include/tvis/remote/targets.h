// targets.h: saved remote targets, `tvis target add/list/remove`, stored as
// TOML in $XDG_CONFIG_HOME/tvis/targets.toml (else ~/.config/tvis/targets.toml):
//   [targets.gpu]
//   host = "c42"
//   via = ["bastion", "login"]
//   path = "~/proj/tvis_runs"
//   remote_tvis = "~/venv/bin/tvis"     # optional
// A file that does not parse, or a target with unknown keys or missing
// host/path, is an error naming the file and the key, never skipped.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tvis/remote/run_store.h"

namespace tvis::remote {

struct Target {
  std::string host;
  std::vector<std::string> via;
  std::string path;
  std::string remote_tvis;  // "" = tvis
};

using Targets = std::map<std::string, Target>;

/// The targets file's path (it need not exist).
std::string targets_file();

/// All saved targets; an absent file is no targets.
Outcome<Targets> load_targets(const std::string& file);
/// Writes `targets` (creating the folder); false with one line on failure.
Outcome<bool> save_targets(const std::string& file, const Targets& targets);

/// A target name: [A-Za-z0-9_.-]+, not containing ':' or '/' (those are paths).
bool valid_target_name(const std::string& name);

/// Why `t` cannot be reached ("" when it can), naming the field: a host or
/// hop that is not one (ssh_session.h ssh_host_problem: empty, starting with
/// '-', a space or a comma), a path or remote tvis with a line break
/// (remote_word_problem). load_targets and `tvis target add` refuse these.
std::string target_problem(const Target& t);

}  // namespace tvis::remote
