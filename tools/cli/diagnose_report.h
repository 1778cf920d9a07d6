// diagnose_report.h: `tvis diagnose` and the mcp tool `diagnose` share this:
// a run file read for its statistics and indexes only, the findings, and
// their JSON (docs/diagnose.md).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "tvis/analysis/diagnose.h"
#include "tvis/format/byte_source.h"
#include "tvis/analysis/run_diff.h"

namespace tvis::cli {

struct DiagnoseReport {
  std::string path;  // the run.tvis read
  std::vector<std::string> rank_paths;  // the other ranks' files read with it (rank<N>.tvis beside run.tvis)
  std::vector<std::string> rank_problems;  // rank files that could not be read, one line each (the rest are judged)
  bool complete = true;
  // Set when the run gives nothing to judge (analysis::nothing_to_judge):
  // the recorder stopped after an internal error, or no optimizer step was
  // completed and no check found anything at warning or error. The command
  // then exits 2 with this reason instead of saying "no findings".
  std::string unjudged;
  std::vector<analysis::Finding> findings;
  // Where in the user's code each finding's module is (finding_sources):
  // sources[i] belongs to findings[i]; line 0 when not known.
  struct Source {
    std::string file, display, site;  // file: absolute on the recording host; site: "definition" | "call"
    uint32_t line = 0;
  };
  std::vector<Source> sources;
  analysis::LoadCost cost;
  double elapsed_ms = 0;  // opening, reading and checking
  bool has_error() const;
};

/// Where the run is: a local run.tvis, its folder, or a runs folder (the
/// newest run); or HOST:PATH / a saved target, read over `tvis agent` with
/// the same options as `tvis open` (only the chunks the checks need cross
/// ssh).
struct DiagnoseRequest {
  std::string what;
  std::vector<std::string> via;
  std::string remote_tvis, ssh_config;
};

/// What reading a run's facts cost, and which file was read.
struct RunRead {
  std::string path;
  bool complete = true;
  analysis::LoadCost cost;
  double elapsed_ms = 0;
  /// What keeps `source` readable: the ssh session and agent of a remote
  /// run (null for a local file). Declared first, so it outlives `source`.
  std::shared_ptr<const void> connection;
  /// The run's bytes as they were read (a local file or a store's run over
  /// the agent): later reads of the same run go through it.
  std::shared_ptr<format::ByteSource> source;
};

/// Reads the facts (statistics and indexes, no tensor values) of the run
/// `request` names. False with *error set when it cannot be read.
bool read_run_facts(const DiagnoseRequest& request, analysis::RunFacts& facts, RunRead& out, std::string* error);

/// Reads what the checks need of the run `request` names and runs them.
/// False with *error set when the run cannot be read.
bool diagnose_run(const DiagnoseRequest& request, DiagnoseReport& out, std::string* error);
/// A local run (the mcp tool: inside the workspace only).
bool diagnose_run(const std::string& run, DiagnoseReport& out, std::string* error);

/// `tvis diff --json`'s object for two local runs that exist (the mcp tool
/// diff: nothing is read over ssh). False with *error set when a run cannot
/// be read.
bool diff_json(const std::string& a, const std::string& b, const analysis::DiffOptions& options, nlohmann::json* out,
               std::string* error);
/// The same for runs read already.
nlohmann::json diff_json(const RunRead& a, const RunRead& b, const analysis::RunDiff& d,
                         const analysis::DiffOptions& options);

/// {"run", "complete", "findings": [...], "counts", "checks", "read"}.
nlohmann::json diagnose_json(const DiagnoseReport& report);

/// The findings as a person reads them, worst first, one block each.
std::string diagnose_text(const DiagnoseReport& report);

}  // namespace tvis::cli
