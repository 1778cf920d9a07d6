#include "run_location.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace tvis::shell {

namespace fs = std::filesystem;

RunLocation locate_run(const std::string& path) {
  RunLocation loc;
  std::error_code ec;
  const fs::path p(path);
  if (!fs::exists(p, ec)) {
    loc.problem = "no such file or folder: " + path;
    return loc;
  }
  if (!fs::is_directory(p, ec)) {
    loc.kind = RunLocation::Kind::File;
    loc.file = path;
    return loc;
  }
  if (fs::is_regular_file(p / "run.tvis", ec)) {
    loc.kind = RunLocation::Kind::File;
    loc.file = (p / "run.tvis").string();
    return loc;
  }
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_directory(e2) && fs::is_regular_file(it->path() / "run.tvis", e2))
      loc.run_dirs.push_back(it->path().string());
  }
  if (loc.run_dirs.empty()) {
    loc.problem = "no run found in " + path + " (expected run.tvis or run folders holding one)";
    return loc;
  }
  // Run folder names start with YYYYmmdd-HHMMSS: newest first.
  std::sort(loc.run_dirs.begin(), loc.run_dirs.end(), [](const std::string& a, const std::string& b) {
    return fs::path(a).filename().string() > fs::path(b).filename().string();
  });
  loc.kind = RunLocation::Kind::RunsFolder;
  return loc;
}

}  // namespace tvis::shell
