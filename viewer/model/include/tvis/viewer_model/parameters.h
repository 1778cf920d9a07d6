// parameters.h: the model's parameters as the optimizer records name them,
// summed per module ("layer1.0.conv1.weight" counts for "layer1.0.conv1").
//
// Contract: non-blocking; module_counts() adds what it can reach and returns
// false while an OptimizerStep chunk or a weight's tensor record of the step
// still loads (the caller asks again later).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace tvis::viewer {

class RunModel;

class Parameters {
 public:
  explicit Parameters(RunModel& model) : model_(model) {}
  /// Parameter element counts per module path at `step`, added into *out.
  bool module_counts(int step, std::unordered_map<std::string, int64_t>* out);

 private:
  RunModel& model_;
};

}  // namespace tvis::viewer
