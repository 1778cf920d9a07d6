// capture_graph.h: a profile capture (`tvis graph`: one ProfileCapture
// chunk) as the plain graph the Graph page draws and reports: its nodes where
// Graphviz placed them at capture time, its edges with their laid-out
// splines, the outcome of the forward and the files it depended on.
//
// Contract: a copy of the record, made once when the chunk arrives
// (ProfileCaptureIndex::graph()); a list the record left out is empty, and
// `has_evidence` tells an absent evidence list from an empty one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/viewer_model/records.h"

namespace tvis::viewer {

/// A tensor's shape (-1: unknown) and dtype, as the capture named it.
struct CaptureOperand {
  std::string name;  // the argument it arrived as ("" for outputs without one)
  std::vector<int64_t> shape;
  std::string dtype;
};

struct CaptureDiagnostic {
  std::string kind;  // "shape_mismatch", "config", "setup", ...
  std::string message;
};

/// One call of the captured forward, with its laid-out box (points, centre).
struct CaptureNode {
  uint32_t id = 0;
  std::string op;      // "conv2d", "module:Conv2d", "input", "output", ...
  std::string module;  // the module path ("" for a bare op)
  float x = 0, y = 0, width = 0, height = 0;
  bool failed = false;  // marked as the failing call
  std::vector<CaptureOperand> inputs, outputs;
};

/// A tensor passed between two nodes: its shape, dtype and dot's spline
/// (x0, y0, x1, y1, ...: p0, then (c1, c2, p) triples, a trailing arrow tip).
struct CaptureEdge {
  std::vector<int64_t> shape;
  std::string dtype;
  std::vector<float> points;
};

/// A file the capture depended on, as it was before the capture ran.
struct CaptureFile {
  std::string role, path, name, resolved;
  bool present = false;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t inode = 0, xxh64 = 0;
};

struct CaptureGraph {
  std::string profile, model, source, stage, label, automatic, layout;
  bool ok = false, partial = false, truncated = false;
  uint32_t failed_node = 0;  // 0 when none
  float width = 0, height = 0;  // the laid-out graph's extent, points
  std::vector<CaptureOperand> outputs;
  std::vector<CaptureDiagnostic> diagnostics;
  std::vector<CaptureNode> nodes;
  std::vector<CaptureEdge> edges;
  std::vector<CaptureFile> evidence;
  bool has_evidence = false;  // the capture recorded an evidence list (possibly empty)

  /// The node with `id`, or nullptr.
  const CaptureNode* node(uint32_t id) const;
  /// The failing call: the recorded failed_node, else the first node marked failed; nullptr when none.
  const CaptureNode* failed() const;
  /// Whether `n` is the failing call (marked, or named by failed_node).
  bool is_failed(const CaptureNode& n) const { return n.failed || n.id == failed_node; }
  /// The first diagnostic's message, "" when none.
  std::string first_diagnostic() const { return diagnostics.empty() ? "" : diagnostics.front().message; }
};

/// The plain copy of `c`.
CaptureGraph capture_graph(const schema::ProfileCapture& c);

}  // namespace tvis::viewer
