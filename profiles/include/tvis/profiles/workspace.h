// workspace.h: which folder a profiles command works on, and what its
// tensorviz.toml is. The root is `--workspace DIR` when given, else the
// nearest folder at or above the current directory holding an entry named
// tensorviz.toml (whatever it is: a directory or a broken link there is an
// error, never "no profile"), else the nearest holding a project marker
// (.git, pyproject.toml, setup.py, setup.cfg), else the current directory.
#pragma once

#include <string>

namespace tvis::profiles {

constexpr const char* kConfigName = "tensorviz.toml";

enum class ConfigState {
  absent,       // no entry named tensorviz.toml in the root
  file,         // a readable regular file (possibly through a symlink)
  not_a_file,   // a directory, socket, device ...
  broken_link,  // a symlink whose target does not exist
  unreadable,   // exists but cannot be opened for reading
};

struct Workspace {
  std::string root;         // absolute, without a trailing slash
  std::string config_path;  // root + "/tensorviz.toml"
  ConfigState config = ConfigState::absent;
  std::string config_error;  // one line when config is neither absent nor file
  std::string error;         // non-empty: no workspace (e.g. --workspace is not a folder)
  bool marked = false;       // the root holds tensorviz.toml or a project marker (else: the start folder, or --workspace)
};

/// The workspace for `explicit_dir` ("" = search upward from `start_dir`).
Workspace find_workspace(const std::string& explicit_dir, const std::string& start_dir);

/// What the entry at `path` is, and the one-line reason when it is unusable.
ConfigState config_state(const std::string& path, std::string* why);

}  // namespace tvis::profiles
