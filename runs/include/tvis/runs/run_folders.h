// run_folders.h: creating and listing runs in a runs folder.
//
// A runs folder may hold other files and folders besides runs; a run is any
// direct subfolder holding kRunFileName whose name does not start with '.'
// (a distributed launch's claim link is hidden: rank_files.h). "Newest" orders runs by the stamp of
// their name (names that parse as run_folder_name()s first), then by the
// run file's modification time (runs created in the same second), then by
// name, so the order is total and the same in every program.
#pragma once

#include <string>
#include <vector>

namespace tvis::runs {

/// Creates `dir` and its missing parents. False with `error` set (one line)
/// when it cannot be created, is not a folder, or is not writable.
bool ensure_runs_folder(const std::string& dir, std::string* error);

/// Creates a fresh, empty run folder <runs>/<run_folder_name(now, stem, id)>
/// with a random id (retried on a clash) and returns its path; "" with
/// `error` set when it cannot. `runs` must exist (ensure_runs_folder).
std::string create_run_folder(const std::string& runs, const std::string& stem, std::string* error);

/// The run folders directly in `runs`, newest first (the order above).
/// Empty when `runs` holds none or cannot be read.
std::vector<std::string> list_runs(const std::string& runs);

}  // namespace tvis::runs
