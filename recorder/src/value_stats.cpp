#include "tvis/recorder/value_stats.h"

#include <cmath>
#include <limits>

namespace tvis::recorder {
namespace {

template <typename T>
ValueStats stats_of(const T* data, size_t n) {
  ValueStats s;
  s.count = n;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  double sum = 0, sum_abs = 0, sum_sq = 0;
  uint64_t nan = 0, inf = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(data[i]);
    if (!std::isfinite(x)) {
      if (std::isnan(x)) ++nan; else ++inf;
      continue;
    }
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    sum += x;
    sum_abs += std::fabs(x);
    sum_sq += x * x;
  }
  s.nan_count = nan;
  s.inf_count = inf;
  s.finite_count = n - nan - inf;
  if (s.finite_count == 0) return s;
  const double m = static_cast<double>(s.finite_count);
  s.min = lo;
  s.max = hi;
  s.mean = sum / m;
  s.mean_abs = sum_abs / m;
  s.l2 = std::sqrt(sum_sq);
  s.hist_lo = lo;
  s.hist_hi = hi;
  s.histogram.assign(kHistogramBins, 0);
  double centred = 0;
  const double scale = hi > lo ? kHistogramBins / (hi - lo) : 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(data[i]);
    if (!std::isfinite(x)) continue;
    const double d = x - s.mean;
    centred += d * d;
    int b = static_cast<int>((x - lo) * scale);
    b = b >= kHistogramBins ? kHistogramBins - 1 : b;
    ++s.histogram[b];
  }
  s.std = std::sqrt(centred / m);
  return s;
}

}  // namespace

ValueStats stats_of_f32(const float* data, size_t n) { return stats_of(data, n); }
ValueStats stats_of_f64(const double* data, size_t n) { return stats_of(data, n); }

}  // namespace tvis::recorder
