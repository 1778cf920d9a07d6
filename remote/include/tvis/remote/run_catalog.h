// run_catalog.h: the run list `tvis open` shows, as JSON. One object per run,
// newest first (run_folders.h's order):
//   {"path": "<relative to the root>/run.tvis", "name": "<run folder name>",
//    "size": bytes, "mtime_ms": int, "script": str, "argv": [str],
//    "steps": int, "started_unix_ms": int, "complete": bool,
//    "error": str|null, "ranks": int, "rank_files": [str]}
// A distributed run (docs/run_layout.md) is one card, for its run.tvis:
// "ranks" counts its rank files and "rank_files" names them (relative to the
// root, by rank: "<run>/run.tvis", "<run>/rank1.tvis", ...); the card's
// other fields are rank 0's. A run of one file has ranks 1 and its own path.
// Reading a card costs the reader's open (header, trailer, footer) and the
// last RunMeta chunk, whatever the run's size; what it copies from that
// RunMeta is bounded (run_summary.h: argv at most kSummaryListItems entries
// and kSummaryListBytes, cut lists ending in "... (N arguments in all)"). A
// run that cannot be read, or whose card fails in any other way, keeps its
// card with `error` set: one bad run never fails the list.
#pragma once

#include <string>
#include <vector>

namespace tvis::remote {

/// The catalog of runs at `root_dir`/`relative` for each relative run file path.
std::string run_catalog_json(const std::string& root_dir, const std::vector<std::string>& run_files);

}  // namespace tvis::remote
