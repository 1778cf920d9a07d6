#include "tvis/runs/run_resolve.h"

#include <filesystem>
#include <system_error>

#include "tvis/runs/run_folders.h"
#include "tvis/runs/run_name.h"

namespace tvis::runs {

namespace fs = std::filesystem;

std::string run_file_in(const std::string& run_dir) { return (fs::path(run_dir) / kRunFileName).string(); }

RunLocation locate_run(const std::string& path) {
  RunLocation loc;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    loc.problem = "no such file or folder: " + path;
    return loc;
  }
  if (!fs::is_directory(st)) {
    loc.kind = RunLocation::Kind::File;
    loc.file = path;
    return loc;
  }
  if (fs::is_regular_file(run_file_in(path), ec)) {
    loc.kind = RunLocation::Kind::File;
    loc.file = run_file_in(path);
    return loc;
  }
  loc.run_dirs = list_runs(path);
  if (loc.run_dirs.empty()) {
    loc.problem = "no run in " + path + " (no run.tvis in it or in its subfolders)";
    return loc;
  }
  loc.kind = RunLocation::Kind::RunsFolder;
  return loc;
}

std::string resolve_run_file(const std::string& path, std::string* error) {
  const RunLocation loc = locate_run(path);
  switch (loc.kind) {
    case RunLocation::Kind::File: return loc.file;
    case RunLocation::Kind::RunsFolder: return run_file_in(loc.run_dirs.front());
    case RunLocation::Kind::Missing: break;
  }
  *error = loc.problem;
  return "";
}

}  // namespace tvis::runs
