// value_stats.h: exact summary statistics of a host array of values.
//
// Contract (shared with the LibTorch path in tensor_capture.cpp, so a tensor
// gets the same numbers wherever it lives):
//   - count = all elements; nan_count / inf_count counted separately;
//     finite_count = count - nan - inf.
//   - min, max, mean, std (population), mean_abs, l2 = sqrt(sum x^2) are over
//     the finite elements, accumulated in double; all 0 when none is finite.
//   - histogram: kHistogramBins equal-width bins over [min, max] of the finite
//     elements (hist_lo = min, hist_hi = max); the last bin is closed; when
//     min == max every finite element falls in bin 0. A value's bin is
//     histogram_bin()'s except within about 1.2e-5 of a bin width from an
//     edge: float32 arrays are binned in float32 when the range allows
//     (neither x - min nor 64 / (max - min) overflows a float), otherwise in
//     double. The same array gets the same bins on any CPU and thread count.
// Two passes over the data: sums (branch-free, 8 lanes, double accumulators;
// a careful pass only when a NaN/Inf is present), then the histogram.
// std = sqrt(E[x^2] - mean^2) in double: exact to ~1e-8 relative unless
// |mean| exceeds std by about 1e4 (the case of almost-constant tensors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tvis::recorder {

inline constexpr int kHistogramBins = 64;

struct ValueStats {
  uint64_t count = 0;
  uint64_t finite_count = 0;
  uint64_t nan_count = 0;
  uint64_t inf_count = 0;
  uint64_t zero_count = 0;  // elements exactly 0 (not stored in the run; picks the chunk layout)
  double min = 0, max = 0, mean = 0, std = 0, mean_abs = 0, l2 = 0;
  double hist_lo = 0, hist_hi = 0;
  std::vector<uint32_t> histogram;  // kHistogramBins entries (empty if no finite value)
};

/// Building blocks for computing the same statistics over pieces in parallel:
/// sums_of_f32 over each piece, merge_sums, then (when `finite`) the pieces'
/// add_histogram_f32 over the merged [lo, hi], then stats_from. With a NaN or
/// Inf anywhere (`finite` false) use stats_of_f32 on the whole array instead.
struct Sums {
  double lo = 0, hi = 0, sum = 0, sum_abs = 0, sum_sq = 0;
  uint64_t count = 0;
  uint64_t zero_count = 0;
  bool finite = true;  // no NaN / Inf among the values
};
Sums sums_of_f32(const float* data, size_t n);
Sums merge_sums(const Sums& a, const Sums& b);
void add_histogram_f32(const float* data, size_t n, double lo, double hi, uint32_t* bins /* kHistogramBins */);
ValueStats stats_from(const Sums& all_finite, std::vector<uint32_t> histogram);

/// Statistics of n float32 values at `data` (any alignment).
ValueStats stats_of_f32(const float* data, size_t n);
/// Statistics of n float64 values.
ValueStats stats_of_f64(const double* data, size_t n);

/// Bin index of finite `x` for a histogram over [lo, hi] with `bins` bins.
inline int histogram_bin(double x, double lo, double hi, int bins) {
  if (!(hi > lo)) return 0;
  int b = static_cast<int>((x - lo) / (hi - lo) * bins);
  return b < 0 ? 0 : (b >= bins ? bins - 1 : b);
}

}  // namespace tvis::recorder
