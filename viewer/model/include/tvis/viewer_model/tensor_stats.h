// tensor_stats.h: a tensor record's recorded statistics as a plain value,
// what the panels draw (the inspector, the tensor view, the layer panel's
// Stats, Weights) and the test surface reports, so none of them holds the
// record's FlatBuffers table.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tvis/viewer_model/records.h"

namespace tvis::viewer {

struct TensorStats {
  uint64_t count = 0, finite_count = 0, nan_count = 0, inf_count = 0;
  double min = 0, max = 0, mean = 0, stddev = 0, mean_abs = 0, l2 = 0;  // over finite elements
  double hist_lo = 0, hist_hi = 0;
  std::vector<double> histogram;  // equal-width bin counts over [hist_lo, hist_hi]
  bool has_histogram() const { return !histogram.empty() && hist_hi > hist_lo; }
};

/// The statistics `rec` recorded; nullopt when it has none.
inline std::optional<TensorStats> tensor_stats(const schema::TensorRecord& rec) {
  const schema::Stats* s = rec.stats();
  if (!s) return std::nullopt;
  TensorStats t;
  t.count = s->count();
  t.finite_count = s->finite_count();
  t.nan_count = s->nan_count();
  t.inf_count = s->inf_count();
  t.min = s->min();
  t.max = s->max();
  t.mean = s->mean();
  t.stddev = s->std();
  t.mean_abs = s->mean_abs();
  t.l2 = s->l2();
  t.hist_lo = s->hist_lo();
  t.hist_hi = s->hist_hi();
  if (s->histogram()) t.histogram.assign(s->histogram()->begin(), s->histogram()->end());
  return t;
}

}  // namespace tvis::viewer
