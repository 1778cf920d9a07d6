// losses.h: the run's loss records (one per step that called a loss), by step.
//
// Contract: lazy and non-blocking, like every model index. Each call indexes
// the Loss chunks that have arrived (and asks for the rest); records stay
// valid while the index holds their chunks, for the run's life. ready() turns
// true once every Loss chunk was indexed or failed.
#pragma once

#include <map>
#include <vector>

#include "tvis/viewer_model/chunk_scan.h"

namespace tvis::viewer {

class RunModel;

class Losses {
 public:
  explicit Losses(RunModel& model) : model_(model) {}
  void reset();
  bool ready();
  /// The loss record of `step`, or nullptr (not recorded, or still loading).
  const schema::LossRecord* at_step(int step);
  /// (step, value) of every indexed record, in step order.
  std::vector<std::pair<int, double>> curve();

 private:
  RunModel& model_;
  ChunkScan scan_;
  std::map<int, ChunkBody<schema::LossRecord>> by_step_;  // holds the chunks: records stay valid
};

}  // namespace tvis::viewer
