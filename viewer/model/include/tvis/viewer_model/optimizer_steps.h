// optimizer_steps.h: the run's optimizer steps (OptimizerStep chunks: one
// OptimizerStepRecord per step, from torch.optim or a hand-written update)
// and, per step, each parameter's weight, gradient and update tensor ids.
//
// Contract: lazy and non-blocking, like every model index: each call indexes
// the OptimizerStep chunks that have arrived (asking for the rest) and
// answers from those; ready() turns true once each was indexed or failed.
// The records stay valid for the run's life (the index holds their chunks).
// A parameter updated by one of two optimizers appears only at the steps of
// its optimizer.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "tvis/viewer_model/chunk_scan.h"

namespace tvis::viewer {

class RunModel;

class OptimizerSteps {
 public:
  explicit OptimizerSteps(RunModel& model) : model_(model) {}
  void reset();
  bool ready();
  /// The record of `step`, or nullptr (no update recorded there, or loading).
  const schema::OptimizerStepRecord* at_step(int step);
  /// Steps with a record, ascending.
  std::vector<int> steps();
  /// Every parameter name seen, in the order of the first step naming it.
  const std::vector<std::string>& names();
  /// `name`'s record at `step`, or nullptr.
  const schema::ParamRecord* param(int step, const std::string& name);
  /// Steps whose record names `name`, ascending.
  std::vector<int> steps_of(const std::string& name);
  /// The hyper-parameters (lr, momentum, ...) of the group holding `name` at
  /// `step`, as (key, repr) pairs; empty for a hand-written update.
  std::vector<std::pair<std::string, std::string>> hyper_of(int step, const std::string& name);

 private:
  RunModel& model_;
  ChunkScan scan_;
  std::map<int, ChunkBody<schema::OptimizerStepRecord>> by_step_;  // holds the chunks
  std::map<int, std::unordered_map<std::string, const schema::ParamRecord*>> params_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, bool> named_;
};

}  // namespace tvis::viewer
