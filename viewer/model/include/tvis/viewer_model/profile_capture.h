// profile_capture.h: a profile capture's graph (`tvis graph`: one
// ProfileCapture chunk, no training steps), read once and kept resident for
// the Graph page.
//
// Contract: non-blocking. get() is Loading while the chunk is read, Failed
// when its read failed (remembered), else Ready with the body. Reset when
// another run opens.
#pragma once

#include "tvis/viewer_model/chunk_body.h"

namespace tvis::viewer {

class RunModel;

class ProfileCaptureIndex {
 public:
  explicit ProfileCaptureIndex(RunModel& model) : model_(model) {}
  void reset() { capture_ = {}; }
  /// The open run holds a ProfileCapture chunk (a capture, not a training run).
  bool present() const;
  /// The run's first ProfileCapture, pinned once read.
  const ChunkBody<schema::ProfileCapture>& get();

 private:
  RunModel& model_;
  ChunkBody<schema::ProfileCapture> capture_;
};

}  // namespace tvis::viewer
