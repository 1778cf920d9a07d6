// user_config.cpp: $XDG_CONFIG_HOME/tvis/config.toml (user_config.h).
#include "tvis/profiles/user_config.h"

#include <cstdlib>
#include <filesystem>

#include <toml++/toml.h>

namespace tvis::profiles {

namespace fs = std::filesystem;

UserConfig load_user_config(const std::string& path) {
  UserConfig u;
  u.path = path;
  std::error_code ec;
  if (path.empty() || fs::symlink_status(path, ec).type() == fs::file_type::not_found) return u;
  u.present = true;
  if (!fs::is_regular_file(path, ec)) {
    u.error = path + " is not a regular file";
    return u;
  }
  try {
    const toml::table doc = toml::parse_file(path);
    for (const auto& [k, v] : doc) {
      if (k.str() != "tool" || !v.is_table()) {
        u.error = path + ": unknown key '" + std::string(k.str()) + "' (expected a [tool] table)";
        return u;
      }
      for (const auto& [key, value] : *v.as_table()) {
        const char* home = std::getenv("HOME");
        const auto absolute = [&](std::string p) {
          if (p.rfind("~/", 0) == 0 && home && *home) p = std::string(home) + p.substr(1);
          return p[0] == '/' ? p : (fs::path(path).parent_path() / p).string();
        };
        if (key.str() == "trusted_workspaces") {
          const toml::array* a = value.as_array();
          if (!a) {
            u.error = path + ": tool.trusted_workspaces must be an array of folder paths";
            return u;
          }
          for (const auto& item : *a) {
            const auto s = item.value<std::string>();
            if (!item.is_string() || !s || s->empty()) {
              u.error = path + ": tool.trusted_workspaces must be an array of folder paths (non-empty strings)";
              return u;
            }
            u.trusted_workspaces.push_back(absolute(*s));
          }
          continue;
        }
        if (key.str() != "python_path") {
          u.error = path + ": unknown key 'tool." + std::string(key.str()) + "' (known: python_path, trusted_workspaces)";
          return u;
        }
        const auto s = value.value<std::string>();
        if (!value.is_string() || !s || s->empty()) {
          u.error = path + ": tool.python_path must be the path of a Python interpreter (a non-empty string)";
          return u;
        }
        u.python_path = absolute(*s);
      }
    }
  } catch (const toml::parse_error& e) {
    u.error = path + ":" + std::to_string(e.source().begin.line) + ": malformed TOML: " + std::string(e.description());
  }
  return u;
}

}  // namespace tvis::profiles

namespace tvis::profiles {

bool workspace_trusted(const UserConfig& u, const std::string& workspace_root) {
  if (workspace_root.empty()) return false;
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(workspace_root, ec);
  if (ec) return false;
  for (const auto& w : u.trusted_workspaces) {
    std::error_code e2;
    const fs::path t = fs::weakly_canonical(w, e2);
    if (!e2 && t == root) return true;
  }
  return false;
}

}  // namespace tvis::profiles
