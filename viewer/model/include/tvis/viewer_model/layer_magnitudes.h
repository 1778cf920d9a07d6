// layer_magnitudes.h: one number per layer and step, what Replay's model
// diagram is coloured by: the forward output's mean |x| (recorded statistics
// of the whole batch; of one batch row, the followed sample's, from the kept
// values: sample_activation()), ||dL/d(output)|| (per followed sample when the
// recorder kept per-row norms, else the batch's) and the optimizer's relative
// update ||dw|| / ||w|| per module (its parameters together).
//
// Contract: non-blocking. at() returns what the resident chunks give and
// StepMagnitudes::complete = false while a chunk of the step still loads;
// a complete answer is kept until the run changes or grows. Owned by the
// RunModel (RunModel::layer_magnitudes()).
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "tvis/viewer_model/step_stops.h"

namespace tvis::viewer {

class RunModel;

struct StepMagnitudes {
  bool complete = false;
  std::unordered_map<uint64_t, double> activation;  // forward call -> mean |output|
  std::unordered_map<uint64_t, double> gradient;    // forward call -> ||dL/d(output)||, batch
  std::unordered_map<uint64_t, std::vector<double>> sample_gradient;  // per followed sample, recorded order
  std::map<std::string, double> update_ratio;       // module path -> ||dw|| / ||w||
  std::map<std::string, double> update_norm;        // module path -> ||dw||
  bool optimizer_recorded = false;                  // an OptimizerStep record exists for the step
  std::string optimizer_class;                      // its optimizer ("SGD"; "" for a hand-written update)
  /// ||dL/d(output)|| of `event` for followed sample at `position` when
  /// recorded, else the batch's; -1 when unknown.
  double gradient_of(uint64_t event, int position) const;
};

/// mean |output[row]| of the forward module calls of a step, from the kept
/// values (the whole row: every element after the batch dim), for the calls
/// among the step's first `through` stops (those the position has reached).
struct SampleActivation {
  bool complete = false;                            // every call asked for so far is decided
  std::unordered_map<uint64_t, double> mean_abs;    // forward call -> mean |output[row]|
  std::unordered_map<uint64_t, bool> not_kept;      // forward call -> its row's values are not in the file
  std::vector<uint64_t> pending;                    // calls still to decide (their chunks load)
  size_t scanned = 0;                               // stops looked at for forward calls
};

class LayerMagnitudes {
 public:
  explicit LayerMagnitudes(RunModel& model) : model_(model) {}
  void reset() {
    steps_.clear();
    rows_.clear();
  }
  const StepMagnitudes& at(const StepPlan& plan);
  /// mean |output[row]| per forward module call among the first `through`
  /// stops of `plan` (Replay: the stops up to its position, so a step's values
  /// are read as the forward reaches each layer, never the whole step on a
  /// first page). Non-blocking and bounded: each call decodes at most
  /// kDecodesPerCall tensors (a frame never decodes a whole step); complete
  /// once every call asked for so far is decided. A call whose output is kept
  /// as statistics only, or whose kept leading rows end before `row`, is in
  /// not_kept. A container whose output is its last part's (one tensor,
  /// recorded by the part) takes the part's answer once the part is decided,
  /// and is not decoded on its own.
  const SampleActivation& sample_activation(const StepPlan& plan, int row, size_t through);
  static constexpr int kDecodesPerCall = 4;

 private:
  RunModel& model_;
  std::map<int, StepMagnitudes> steps_;
  std::map<std::pair<int, int>, SampleActivation> rows_;  // (step, row)
};

/// "layer1.0.conv1.weight" -> "layer1.0.conv1" ("" for a top-level name).
std::string module_of_parameter(const std::string& param);

}  // namespace tvis::viewer
