// losses.h: the run's loss records, by step. A step holds one record per
// backward() it ran (a GAN's discriminator step: the real and the fake loss),
// in event order.
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
  /// The first loss record of `step`, or nullptr (not recorded, or still loading).
  const schema::LossRecord* at_step(int step);
  /// Every indexed record of `step`, in event order (empty: none, or loading).
  std::vector<const schema::LossRecord*> all_at_step(int step);
  /// Every indexed record, in (step, event) order.
  std::vector<const schema::LossRecord*> all();
  /// (step, value) of every indexed record, in (step, event) order.
  std::vector<std::pair<int, double>> curve();

 private:
  RunModel& model_;
  ChunkScan scan_;
  // Holds the chunks (records stay valid), each step's in event order.
  std::map<int, std::vector<ChunkBody<schema::LossRecord>>> by_step_;
};

}  // namespace tvis::viewer
