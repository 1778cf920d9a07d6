// run_path.h: how every command that takes a run finds its file
// (INTERFACES.md): RUN may be a run.tvis file, its run folder, or a runs
// folder, which means the newest run in it.
#pragma once

#include <string>

namespace tvis::cli {

/// The run file `arg` names. On failure returns "" and sets `error` to one
/// line naming the problem ("no such file or folder: x", "no runs in x").
std::string resolve_run_path(const std::string& arg, std::string* error);

}  // namespace tvis::cli
