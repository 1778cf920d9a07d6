// recheck_scope.cpp: where a recheck for an opened run may read, and that
// recheck (file_identity.h "RecheckScope"). In tvis_file_identity with
// workspace.cpp and user_config_path(), so tvis-view scopes its rechecks
// by the same rule as `tvis open` and `tvis inspect`.
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>

#include "tvis/profiles/file_identity.h"
#include "tvis/profiles/user_config.h"
#include "tvis/profiles/workspace.h"

namespace tvis::profiles {

namespace fs = std::filesystem;

namespace {

std::string resolved(const std::string& path) {
  char real[PATH_MAX];
  return ::realpath(path.c_str(), real) ? std::string(real) : std::string();
}

bool inside(const std::string& path, const std::string& root) {
  return !root.empty() && (path == root || path.rfind(root == "/" ? root : root + "/", 0) == 0);
}

// Whether the recheck of `id` may look at it, and if not why (one phrase).
std::string outside_scope(const FileIdentity& id, const RecheckScope& scope) {
  if (scope.roots.empty()) return scope.why;
  std::string now = resolved(id.path);
  if (now.empty()) {  // absent now: judged by the path as named, without following anything
    if (id.path.empty() || id.path[0] != '/') return "not an absolute path";
    now = fs::path(id.path).lexically_normal().string();
  }
  for (const auto& root : scope.roots)
    if (inside(now, root)) return "";
  for (const auto& file : scope.files)
    if (now == file) return "";
  std::string roots;
  for (const auto& root : scope.roots) roots += (roots.empty() ? "" : " and ") + root;
  return "outside the workspace " + roots;
}

}  // namespace

std::string user_config_path() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/tvis/config.toml";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.config/tvis/config.toml";
  return "";
}

RecheckScope no_recheck_scope(const std::string& why) {
  RecheckScope s;
  s.why = why;
  return s;
}

namespace {

// The marked workspace holding `dir` (resolved), or "".
std::string marked_workspace(const std::string& dir) {
  const Workspace w = find_workspace("", dir);
  return w.error.empty() && w.marked ? resolved(w.root) : std::string();
}

}  // namespace

RecheckScope recheck_scope_for(const std::string& location) {
  const std::string real = resolved(location);
  if (real.empty()) return no_recheck_scope(location + " cannot be resolved");
  std::error_code ec;
  const std::string start = fs::is_directory(real, ec) ? real : fs::path(real).parent_path().string();
  RecheckScope s;
  for (const std::string& dir : {start, fs::current_path(ec).string()}) {
    const std::string root = dir.empty() ? std::string() : marked_workspace(dir);
    if (!root.empty() && std::find(s.roots.begin(), s.roots.end(), root) == s.roots.end()) s.roots.push_back(root);
  }
  if (s.roots.empty())
    return no_recheck_scope("no workspace (a folder with tensorviz.toml or a project marker) holds " + location +
                            " or the current folder");
  if (const std::string user = user_config_path(); !user.empty() && user[0] == '/') {  // absent too: its appearance counts
    const std::string real_user = resolved(user);
    s.files.push_back(real_user.empty() ? fs::path(user).lexically_normal().string() : real_user);
  }
  return s;
}

Freshness recheck_files_within(const std::vector<FileIdentity>& identities, const RecheckScope& scope) {
  Freshness f;
  if (scope.roots.empty()) {
    f.why = scope.why;
    return f;
  }
  for (const auto& id : identities) {
    if (std::string why = outside_scope(id, scope); !why.empty()) {
      f.unchecked.push_back(id.name + ": " + why);
      continue;
    }
    struct stat st{};
    if (::stat(id.path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxRecheckBytes) {
      f.unchecked.push_back(id.name + ": larger than " + std::to_string(kMaxRecheckBytes >> 20) + " MiB");
      continue;
    }
    f.checked = true;
    if (std::string change = file_change_within(id, kMaxRecheckBytes); !change.empty()) f.reasons.push_back(std::move(change));
  }
  f.stale = !f.reasons.empty();
  if (!f.checked && f.why.empty()) f.why = "no recorded file lies in the workspaces it may read";
  return f;
}

}  // namespace tvis::profiles
