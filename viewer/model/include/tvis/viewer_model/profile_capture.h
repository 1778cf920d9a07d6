// profile_capture.h: a profile capture's graph (`tvis graph`: one
// ProfileCapture chunk, no training steps), read once and kept for the Graph
// page as a plain CaptureGraph (capture_graph.h).
//
// Contract: non-blocking. graph() is nullptr while the chunk is read and when
// its read failed (state() says which: Loading or Failed, remembered), else
// the graph, copied once. Reset when another run opens.
#pragma once

#include <optional>

#include "tvis/viewer_model/capture_graph.h"
#include "tvis/viewer_model/chunk_body.h"

namespace tvis::viewer {

class RunModel;

class ProfileCaptureIndex {
 public:
  explicit ProfileCaptureIndex(RunModel& model) : model_(model) {}
  void reset() {
    capture_ = {};
    graph_.reset();
  }
  /// The open run holds a ProfileCapture chunk (a capture, not a training run).
  bool present() const;
  /// The run's first ProfileCapture as a graph; nullptr until it is read.
  const CaptureGraph* graph();
  /// Loading while the chunk is read, Failed when its read failed, else Ready.
  ChunkRead state() const { return capture_.state; }

 private:
  RunModel& model_;
  ChunkBody<schema::ProfileCapture> capture_;  // pinned once read
  std::optional<CaptureGraph> graph_;
};

}  // namespace tvis::viewer
