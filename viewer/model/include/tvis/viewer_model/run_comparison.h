// run_comparison.h: two runs of the same training side by side (the viewer's
// Compare page), as numbers: where they part ways (analysis/run_diff.h, the
// same comparison as `tvis diff`) and, at one position (step, and a module's
// activation or gradient, or a parameter's weight, gradient or update), both
// runs' values and their elementwise difference |A - B|.
//
// Contracts:
//   - Non-blocking like every model index: summary() is not `ready` while
//     either run's records load, values_at() is `loading` while a record or
//     a values chunk is read; the caller asks again next frame.
//   - Positions match across runs by name: a module's first call of the
//     step, a parameter's record at the step. A run without it says so in
//     `error`; runs of different models say so in the summary's `mismatch`.
//   - Nothing here throws or asserts on a run it cannot compare: every
//     problem is a one-line message.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tvis/analysis/run_diff.h"
#include "tvis/viewer_model/decoded_values.h"
#include "tvis/viewer_model/rank_comparison.h"

namespace tvis::viewer {

class RunModel;

/// What a position shows: a module call's output or dL/d(output), or a
/// parameter's weight (as the step began), .grad or update Δw.
enum class CompareShow { Activation, Gradient, Weight, Grad, Update };
/// "activation", "gradient", "weight", "grad", "update".
const char* compare_show_name(CompareShow show);
/// The show named `name`; false for other names.
bool compare_show_named(const std::string& name, CompareShow* out);
/// Weight, Grad and Update name a parameter; the others a module.
inline bool shows_param(CompareShow show) { return show >= CompareShow::Weight; }

struct ComparePosition {
  int step = 0;
  CompareShow show = CompareShow::Activation;
  std::string module;  // Activation, Gradient
  std::string param;   // Weight, Grad, Update
};

/// The runs compared as a whole, from both runs' records (never values).
struct ComparisonSummary {
  bool ready = false;
  analysis::RunDiff diff;
  /// "runs differ in model: ..." when the runs call other modules or hold
  /// other parameters, "" otherwise.
  std::string mismatch;
  std::vector<std::string> modules;  // modules both runs call, in run A's call order
  std::vector<std::string> params;   // parameters both runs hold, in run A's order
};

/// Both runs compared with run_diff (the default: exactly).
class RunComparison {
 public:
  /// Computed once, when both runs' records have been read.
  const ComparisonSummary& summary(RunModel& a, RunModel& b);
  void reset() { summary_ = ComparisonSummary(); }

 private:
  ComparisonSummary summary_;
};

/// One position's values in both runs and their elementwise difference.
struct ComparedValues {
  bool loading = true;
  std::string error;  // why the position cannot be compared ("" when compared)
  std::shared_ptr<const DecodedTensor> a, b;
  std::vector<int64_t> shape;         // as kept (both runs the same)
  std::vector<double> abs_difference; // |a - b| per kept element (NaN vs number: +inf)
  ValuesDifference difference;        // max |a - b|, where, how many differ
};

/// The tensors at `p` in runs `a` and `b`, compared.
ComparedValues compare_values(RunModel& a, RunModel& b, const ComparePosition& p);

}  // namespace tvis::viewer
