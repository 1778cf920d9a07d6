// optimizer_steps.h: the run's optimizer steps (OptimizerStep chunks: an
// OptimizerStepRecord per optimizer.step() or hand-written update; a step
// with two optimizers, a GAN's, holds two) and, per step, each parameter's
// weight, gradient and update tensor ids.
//
// Contract: lazy and non-blocking, like every model index: each call indexes
// the OptimizerStep chunks that have arrived (asking for the rest) and
// answers from those; ready() turns true once each was indexed or failed.
// The records stay valid for the run's life (the index holds their chunks).
// A parameter updated by one of two optimizers appears only in its
// optimizer's record; where two records of a step name the same parameter,
// the first written is used.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tvis/viewer_model/chunk_scan.h"

namespace tvis::viewer {

class RunModel;

/// A parameter's tensors at one step, by tensor id (-1: not recorded).
struct ParamTensors {
  int64_t weight = -1;  // the weight before the step
  int64_t grad = -1;    // .grad at the step
  int64_t update = -1;  // Δw's record (statistics; values only in older runs)
  int64_t after = -1;   // the weight after the step
};
ParamTensors param_tensors_of(const schema::ParamRecord& p);

/// What the pages say of one optimizer step's record.
struct OptimizerStepInfo {
  std::string optimizer_class;  // torch.optim class; "" for a hand-written update
  bool skipped = false;         // GradScaler skipped the step (a gradient was inf or NaN)
  double grad_scale = 0;        // the scale the backward's gradients carried; 0: no GradScaler
};
OptimizerStepInfo optimizer_step_info(const schema::OptimizerStepRecord& r);

class OptimizerSteps {
 public:
  explicit OptimizerSteps(RunModel& model) : model_(model) {}
  void reset();
  bool ready();
  /// The first record of `step`, or nullptr (no update recorded there, or loading).
  const schema::OptimizerStepRecord* at_step(int step);
  /// Every record of `step`, in file order.
  std::vector<const schema::OptimizerStepRecord*> all_at_step(int step);
  /// The record of `step` that updates `name`, or nullptr.
  const schema::OptimizerStepRecord* record_of(int step, const std::string& name);
  /// Steps with a record, ascending.
  std::vector<int> steps();
  /// Every parameter name seen, in the order of the first step naming it.
  const std::vector<std::string>& names();
  /// `name`'s record at `step`, or nullptr.
  const schema::ParamRecord* param(int step, const std::string& name);
  /// `name`'s tensors at `step` (param() as a plain value); nullopt when not recorded.
  std::optional<ParamTensors> param_tensors(int step, const std::string& name);
  /// record_of() as a plain value; nullopt when no record of `step` updates `name`.
  std::optional<OptimizerStepInfo> step_info(int step, const std::string& name);
  /// all_at_step() as plain values, in file order.
  std::vector<OptimizerStepInfo> step_infos(int step);
  /// Steps whose record names `name`, ascending.
  std::vector<int> steps_of(const std::string& name);
  /// The hyper-parameters (lr, momentum, ...) of the group holding `name` at
  /// `step`, as (key, repr) pairs; empty for a hand-written update.
  std::vector<std::pair<std::string, std::string>> hyper_of(int step, const std::string& name);

 private:
  RunModel& model_;
  ChunkScan scan_;
  std::map<int, std::vector<ChunkBody<schema::OptimizerStepRecord>>> by_step_;  // holds the chunks
  struct Named {
    const schema::ParamRecord* param;
    const schema::OptimizerStepRecord* record;
  };
  std::map<int, std::unordered_map<std::string, Named>> params_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, bool> named_;
};

}  // namespace tvis::viewer
