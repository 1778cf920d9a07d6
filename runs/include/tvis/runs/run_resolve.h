// run_resolve.h: what a path given to a command that takes a run names. It
// may be the run file itself (any regular file: the reader judges it), its
// run folder (holding kRunFileName), or a runs folder: then the newest run
// in it, or all its runs for a command that shows a run list.
#pragma once

#include <string>
#include <vector>

namespace tvis::runs {

struct RunLocation {
  enum class Kind { File, RunsFolder, Missing } kind = Kind::Missing;
  std::string file;                   // File: the run file
  std::vector<std::string> run_dirs;  // RunsFolder: its run folders, newest first (never empty)
  std::string problem;                // Missing: one line for the user
};

/// Classifies `path`. Missing problems: "no such file or folder: PATH",
/// "no run in PATH (no run.tvis in it or in its subfolders)".
RunLocation locate_run(const std::string& path);

/// The one run file `path` names (a runs folder: its newest run). On failure
/// returns "" and sets `error` to locate_run()'s problem.
std::string resolve_run_file(const std::string& path, std::string* error);

/// kRunFileName inside `run_dir`.
std::string run_file_in(const std::string& run_dir);

}  // namespace tvis::runs
