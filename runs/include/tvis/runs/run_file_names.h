// run_file_names.h: the run-file rules that depend on names alone (no
// filesystem), so every program applies the same ones: rank_files_in() and
// list_runs() here, and the browser through wasm/run_rules.cpp, which exports
// them to viewer_glue.js for a dropped or chosen runs folder.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tvis::runs {

/// The rank a run file's name says: 0 for run.tvis (kRunFileName), k for
/// rank<k>.tvis (k in 1..999999, no leading zero); -1 for any other name.
int rank_of_file_name(std::string_view name);

/// A name starting with '.': never a run (a launch's claim: rank_files.h).
bool is_hidden_name(std::string_view name);

/// How far below a folder given to the browser (dropped or chosen) run files
/// are looked for: a run file at most this many folders down.
inline constexpr int kFoundRunMaxDepth = 3;

/// Whether `path` ('/'-separated, relative: its first part is what was given)
/// names a run file among found files: it ends in ".tvis", lies at most
/// kFoundRunMaxDepth folders below the first part, and no part after the
/// first is hidden.
bool is_found_run_file(std::string_view path);

/// One run among found files: named after the folder holding its file (the
/// file's name when it has no folder); its files as (rank, index into the
/// paths given), by rank.
struct FoundRun {
  std::string name;
  std::vector<std::pair<int, size_t>> files;
};

/// The runs among `paths` (found run files, as is_found_run_file takes them):
/// the rank files of one folder (run.tvis, rank<k>.tvis) are one distributed
/// run; any other file is a run of its own (rank 0). Newest first: by name,
/// descending (run folder names start with their creation stamp), ties in
/// the order found.
std::vector<FoundRun> group_found_runs(const std::vector<std::string>& paths);

}  // namespace tvis::runs
