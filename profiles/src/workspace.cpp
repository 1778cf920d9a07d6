#include "tvis/profiles/workspace.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace tvis::profiles {

namespace fs = std::filesystem;

namespace {

bool entry_exists(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() != fs::file_type::not_found && !ec;
}

bool has_project_marker(const fs::path& dir) {
  for (const char* marker : {".git", "pyproject.toml", "setup.py", "setup.cfg"})
    if (entry_exists(dir / marker)) return true;
  return false;
}

std::string without_trailing_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

ConfigState config_state(const std::string& path, std::string* why) {
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (ec || link.type() == fs::file_type::not_found) return ConfigState::absent;
  const fs::file_status target = fs::status(path, ec);
  if (link.type() == fs::file_type::symlink && (ec || target.type() == fs::file_type::not_found)) {
    std::error_code rec;
    const fs::path to = fs::read_symlink(path, rec);
    *why = path + " is a symlink to " + to.string() + ", which does not exist";
    return ConfigState::broken_link;
  }
  if (target.type() == fs::file_type::directory) {
    *why = path + " is a directory, not a file";
    return ConfigState::not_a_file;
  }
  if (target.type() != fs::file_type::regular) {
    *why = path + " is not a regular file";
    return ConfigState::not_a_file;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *why = path + " cannot be read: " + std::strerror(errno);
    return ConfigState::unreadable;
  }
  return ConfigState::file;
}

Workspace find_workspace(const std::string& explicit_dir, const std::string& start_dir) {
  Workspace w;
  std::error_code ec;
  fs::path root;
  if (!explicit_dir.empty()) {
    root = fs::absolute(explicit_dir, ec);
    if (ec || !fs::is_directory(root, ec)) {
      w.error = "--workspace " + explicit_dir + " is not a folder";
      return w;
    }
  } else {
    const fs::path start = fs::absolute(start_dir, ec);
    fs::path marker_dir;
    for (fs::path dir = start;; dir = dir.parent_path()) {
      if (entry_exists(dir / kConfigName)) {
        root = dir;
        w.marked = true;
        break;
      }
      if (marker_dir.empty() && has_project_marker(dir)) marker_dir = dir;
      if (dir == dir.root_path() || dir.parent_path() == dir) break;
    }
    if (root.empty()) {
      root = marker_dir.empty() ? start : marker_dir;
      w.marked = !marker_dir.empty();
    }
  }
  w.root = without_trailing_slash(root.lexically_normal().string());
  w.config_path = w.root + "/" + kConfigName;
  w.config = config_state(w.config_path, &w.config_error);
  return w;
}

}  // namespace tvis::profiles
