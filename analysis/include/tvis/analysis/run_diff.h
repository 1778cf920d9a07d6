// run_diff.h: where two runs of the same training part ways.
//
// Events are matched by (step, phase, kind, name, how many such calls came
// before in that step); a matched pair's tensors by (role, slot, followed
// sample, name); parameters by (step, name). Two tensors agree when their
// shapes and every statistic the recorder computed over all their values
// (count, NaN and Inf counts, min, max, mean, std, mean |x|, l2) agree:
// exactly by default, or within |a - b| <= atol + rtol * |b|. Statistics
// cover every element even where the run kept no values, so a difference
// anywhere in a tensor shows, with two exceptions: values that only moved
// between positions, and differences below the statistics' float rounding.
// Nothing here reads tensor values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/analysis/finding.h"
#include "tvis/analysis/run_facts.h"

namespace tvis::analysis {

struct DiffOptions {
  double atol = 0, rtol = 0;
};

/// One tensor that differs between the runs.
struct TensorDelta {
  int step = -1;
  std::string phase, module, role, name;  // module: the call's name; name: the parameter's for weights
  std::string statistic;                  // the statistic that differs most ("mean", "l2", "shape", ...)
  double a = 0, b = 0;                    // its value in each run
  double delta = 0;                       // |a - b| (relative to |b| when that is larger than 1)
  int64_t event = -1;                     // run A's event id (the optimizer step's for parameters)
  // input, output, grad, weight, update or loss: what the tensor is, as `tvis diff --json` names it.
  std::string what;
  Position where;                         // where the viewer shows it
};

struct RunDiff {
  uint64_t events_matched = 0, events_only_a = 0, events_only_b = 0;
  uint64_t tensors_compared = 0, tensors_differing = 0;
  int steps_a = 0, steps_b = 0;
  bool has_first = false;
  TensorDelta first;                 // the first differing tensor in call order
  std::vector<TensorDelta> largest;  // per (step, module): the largest difference, largest first
  bool same() const { return tensors_differing == 0 && events_only_a == 0 && events_only_b == 0; }
};

/// Compares run `a` with run `b`; `largest` keeps at most `max_rows` rows.
RunDiff diff_runs(const RunFacts& a, const RunFacts& b, const DiffOptions& options, size_t max_rows = 40);

}  // namespace tvis::analysis
