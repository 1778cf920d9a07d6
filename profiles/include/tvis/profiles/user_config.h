// user_config.h: the user's own tvis settings for every workspace,
// $XDG_CONFIG_HOME/tvis/config.toml (else ~/.config/tvis/config.toml, beside
// targets.toml). It holds what tensorviz.toml's [tool] table holds, for the
// workspaces that do not say it themselves:
//   [tool]
//   python_path = "/home/me/venvs/torch/bin/python"
// An unknown key, a wrong type or malformed TOML is an error naming the file
// (and the key), never "no setting".
#pragma once

#include <string>

namespace tvis::profiles {

struct UserConfig {
  std::string path;         // the file looked at (whether or not it exists)
  bool present = false;
  std::string python_path;  // absolute ("~/" expanded; a relative path is against the file's folder); "" = not set
  std::string error;        // "" when read (or absent)
};

/// The path of the user config ("" when neither XDG_CONFIG_HOME nor HOME is set).
std::string user_config_path();

/// Reads `path` (user_config_path() by default).
UserConfig load_user_config(const std::string& path = user_config_path());

}  // namespace tvis::profiles
