// user_config.h: the user's own tvis settings for every workspace,
// $XDG_CONFIG_HOME/tvis/config.toml (else ~/.config/tvis/config.toml, beside
// targets.toml). It holds what tensorviz.toml's [tool] table holds, for the
// workspaces that do not say it themselves:
//   [tool]
//   python_path = "/home/me/venvs/torch/bin/python"
//   trusted_workspaces = ["/home/me/proj"]
// An unknown key, a wrong type or malformed TOML is an error naming the file
// (and the key), never "no setting".
// trusted_workspaces (only here, never in a workspace's own files): the
// workspaces whose own interpreter settings (.tensorviz-choices.toml
// `python`, tensorviz.toml `[tool] python_path`) tvis may run. A workspace
// not listed is untrusted: a cloned repository cannot name a program tvis
// runs (docs/profiles.md "The interpreter").
#pragma once

#include <string>
#include <vector>

namespace tvis::profiles {

struct UserConfig {
  std::string path;         // the file looked at (whether or not it exists)
  bool present = false;
  std::string python_path;  // absolute ("~/" expanded; a relative path is against the file's folder); "" = not set
  std::vector<std::string> trusted_workspaces;  // absolute, as written ("~/" expanded)
  std::string error;        // "" when read (or absent)
};

/// Whether `workspace_root` is one of u.trusted_workspaces (both resolved: symlinks followed).
bool workspace_trusted(const UserConfig& u, const std::string& workspace_root);

/// The path of the user config ("" when neither XDG_CONFIG_HOME nor HOME is set).
std::string user_config_path();

/// Reads `path` (user_config_path() by default).
UserConfig load_user_config(const std::string& path = user_config_path());

}  // namespace tvis::profiles
