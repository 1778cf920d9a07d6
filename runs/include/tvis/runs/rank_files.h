// rank_files.h: one run folder for every rank of a distributed launch.
//
// Layout: rank 0 records into kRunFileName (run.tvis), so every command
// that takes a run reads the folder as a single-process run, rank 0's view;
// rank k >= 1 records into rank<k>.tvis beside it. A folder whose only run
// file is run.tvis is a single-process run (rank 0 of a world of one).
//
// Joining: the ranks of one launch agree on the folder without talking to
// each other. They share a launch key (from the launcher's environment:
// tools/cli/distributed_env.h); the first rank to start makes a fresh run
// folder and claims it with a file `.launch-<hash of key>` in the runs folder
// holding that folder's name (written to a temporary file first and linked
// into place: link(2) is atomic and fails on an existing name), and the
// others read it. A claim is stale, and replaced, when its folder already
// holds the joining rank's file (an earlier launch with the same key) or it
// is older than kLaunchClaimMaxAgeSeconds.
// Hostile claims (issue 29): a claim that is a link (never followed), not a
// regular file, not this user's, or that holds anything but one folder name
// of the runs folder, or names a link or another user's folder, is refused
// with an error naming it: whoever can write to a shared runs folder cannot
// redirect a launch's recording.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tvis::runs {

inline constexpr int kLaunchClaimMaxAgeSeconds = 6 * 3600;

/// "run.tvis" for rank 0, "rank<k>.tvis" otherwise.
std::string rank_file_name(int rank);

/// The run folder of launch `launch_key` in `runs` (which must exist):
/// created by the first rank, joined by the others. "" with `error` set when
/// it cannot be created or followed.
std::string join_launch_folder(const std::string& runs, const std::string& stem, const std::string& launch_key,
                               int rank, std::string* error);

/// The ranks recorded in `run_dir`: (rank, file), by rank; rank 0 is
/// run.tvis. Only regular files count (a FIFO, folder or socket of that
/// name is not a rank). Empty when there is none.
std::vector<std::pair<int, std::string>> rank_files_in(const std::string& run_dir);

}  // namespace tvis::runs
