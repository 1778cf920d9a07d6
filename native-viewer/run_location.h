// run_location.h: what a path given to tvis-view names (INTERFACES.md): a
// run.tvis file, its run folder, or a runs folder (shown as a run list).
#pragma once

#include <string>
#include <vector>

namespace tvis::shell {

struct RunLocation {
  enum class Kind { File, RunsFolder, Missing } kind = Kind::Missing;
  std::string file;                     // Kind::File: the run file
  std::vector<std::string> run_dirs;    // Kind::RunsFolder: run folders, newest name first
  std::string problem;                  // Kind::Missing: one line for the user
};

RunLocation locate_run(const std::string& path);

}  // namespace tvis::shell
