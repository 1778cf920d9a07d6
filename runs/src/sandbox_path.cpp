#include "tvis/runs/sandbox_path.h"

#include <filesystem>
#include <system_error>

namespace tvis::runs {

namespace fs = std::filesystem;

namespace {

/// True when `p` is `root` or lies below it (both lexically normal, absolute).
bool is_within(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end() && !r->empty(); ++r, ++q)
    if (q == p.end() || *q != *r) return false;
  return true;
}

bool has_dot_dot(const fs::path& p) {
  for (const auto& part : p)
    if (part == "..") return true;
  return false;
}

}  // namespace

std::string sandboxed_path(const std::string& root, const std::string& requested, std::string* error) {
  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec || !fs::is_directory(real_root)) {
    *error = "no such root folder: " + root;
    return "";
  }
  const fs::path req(requested);
  if (req.is_absolute()) {
    *error = "absolute path refused: " + requested;
    return "";
  }
  if (has_dot_dot(req)) {
    *error = "path escapes " + root + ": " + requested;
    return "";
  }
  // weakly_canonical follows the symlinks of every existing prefix and keeps
  // the rest as given: a link inside root pointing outside is caught here.
  const fs::path resolved = fs::weakly_canonical(real_root / req, ec).lexically_normal();
  if (ec || !is_within(real_root, resolved)) {
    *error = "path escapes " + root + ": " + requested;
    return "";
  }
  return resolved.string();
}

}  // namespace tvis::runs
