// inspect_json.h: the `tvis inspect --json` object (keys in docs/cli.md) for a
// RunSummary, keys in the documented order, losses with Python repr() digits.
#pragma once

#include <string>
#include <vector>

#include "tvis/format/run_summary.h"

namespace tvis::cli {

/// One rank of a multi-rank run folder (tvis/runs/rank_files.h).
struct RankSummary {
  int rank = 0;
  int steps = 0;
  std::vector<double> losses;
  bool complete = false;
  std::string error;  // the file could not be read as a run ("" when it was)
};

/// The JSON text, ending in a newline. With `ranks` non-empty (the run's
/// folder holds several ranks), a "ranks" key lists them before "captured".
std::string inspect_json(const tvis::format::RunSummary& summary, const std::vector<RankSummary>& ranks = {});

}  // namespace tvis::cli
