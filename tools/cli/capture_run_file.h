// capture_run_file.h: a Capture written as a run (`tvis graph`): a run
// folder holding run.tvis with a RunMeta of kind ProfileCapture and one
// ProfileCapture chunk (nodes with their Graphviz layout, edges with shapes
// and dtypes, diagnostics, the partial-evidence label), read by both
// viewers' Graph page. The worker's log is kept beside it as worker.log.
#pragma once

#include <string>
#include <vector>

#include "graph_layout.h"
#include "tvis/profiles/capture.h"

namespace tvis::cli {

/// The label lines of each node, and the edges between captured nodes (in
/// the order write_capture_run stores them): what layout_graph() lays out.
void capture_layout_input(const profiles::Capture& c, std::vector<LayoutNode>* nodes, std::vector<LayoutEdge>* edges);

struct CaptureRunInfo {
  std::vector<std::string> argv;  // the tvis command line
  std::string workspace, device;
  long long started_unix_ms = 0, finished_unix_ms = 0;
  nlohmann::json request;  // what made it (capture_freshness.h request_json()); null: not recorded
  nlohmann::json report;   // the `tvis graph --json` object printed for it; null: not recorded
};

/// Writes `run_file`; "" on success, else the error (one line).
std::string write_capture_run(const profiles::Capture& c, const GraphLayout& layout, const CaptureRunInfo& info,
                              const std::string& run_file);

}  // namespace tvis::cli
