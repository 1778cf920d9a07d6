#include "tvis/recorder/value_stats.h"

#include <cmath>
#include <limits>

// The two loops below are the recorder's hot path (every value recorded goes
// through them). They are compiled once per instruction set and picked at
// load time (GCC/Clang function multiversioning); the arithmetic is the same
// in every version (explicit lanes, no reassociation, no FMA contraction:
// -ffp-contract=off in CMakeLists.txt), so the numbers do not depend on the CPU.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define TVIS_HOT_LOOP __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TVIS_HOT_LOOP
#endif

namespace tvis::recorder {
namespace {

constexpr int kLanes = 8;
constexpr size_t kBinBlock = 512;  // bin indices computed a block at a time (vectorized), then counted

// Pass 1 without branches: per-lane min/max, double sums and the count of
// exact zeros. Any NaN or Inf makes `sum` non-finite, which sends the caller
// to the careful path (the zero count stays exact: NaN != 0).
template <typename T>
inline __attribute__((always_inline)) void lane_sums(const T* data, size_t n, double* lo, double* hi, double* sum,
                                                     double* sum_abs, double* sum_sq, uint64_t* zeros) {
  T mn[kLanes], mx[kLanes];
  double s[kLanes] = {}, a[kLanes] = {}, q[kLanes] = {};
  uint64_t z[kLanes] = {};
  for (int l = 0; l < kLanes; ++l) mn[l] = mx[l] = n ? data[0] : T(0);
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const T x = data[i + l];
      mn[l] = x < mn[l] ? x : mn[l];
      mx[l] = x > mx[l] ? x : mx[l];
      const double d = static_cast<double>(x);
      s[l] += d;
      a[l] += std::fabs(d);
      q[l] += d * d;
      z[l] += x == T(0);
    }
  }
  for (; i < n; ++i) {
    const T x = data[i];
    mn[0] = x < mn[0] ? x : mn[0];
    mx[0] = x > mx[0] ? x : mx[0];
    const double d = static_cast<double>(x);
    s[0] += d;
    a[0] += std::fabs(d);
    q[0] += d * d;
    z[0] += x == T(0);
  }
  *zeros = 0;
  *lo = static_cast<double>(mn[0]);
  *hi = static_cast<double>(mx[0]);
  *sum = *sum_abs = *sum_sq = 0;
  for (int l = 0; l < kLanes; ++l) {
    *lo = std::fmin(*lo, static_cast<double>(mn[l]));
    *hi = std::fmax(*hi, static_cast<double>(mx[l]));
    *sum += s[l];
    *sum_abs += a[l];
    *sum_sq += q[l];
    *zeros += z[l];
  }
}

// Histogram of finite values over [lo, hi]: bin = floor((x - lo) * scale)
// clamped to [0, bins - 1], in double (the same bin as histogram_bin() for
// all but values a rounding away from a bin edge). Indices are computed a
// block at a time, a loop the compiler vectorizes, then counted into four
// sub-histograms that break the store-to-load dependency of repeated bins.
template <typename T>
inline __attribute__((always_inline)) void count_bins(const T* data, size_t n, double lo, double scale,
                                                      uint32_t (*h)[kHistogramBins]) {
  int32_t idx[kBinBlock];
  const double top = kHistogramBins - 1;
  for (size_t i0 = 0; i0 < n; i0 += kBinBlock) {
    const size_t m = n - i0 < kBinBlock ? n - i0 : kBinBlock;
    for (size_t j = 0; j < m; ++j) {
      double t = (static_cast<double>(data[i0 + j]) - lo) * scale;
      t = t > 0 ? t : 0;
      t = t < top ? t : top;
      idx[j] = static_cast<int32_t>(t);
    }
    size_t j = 0;
    for (; j + 4 <= m; j += 4) {
      ++h[0][idx[j]];
      ++h[1][idx[j + 1]];
      ++h[2][idx[j + 2]];
      ++h[3][idx[j + 3]];
    }
    for (; j < m; ++j) ++h[0][idx[j]];
  }
}

TVIS_HOT_LOOP void lane_sums_f32(const float* d, size_t n, double* lo, double* hi, double* s, double* a, double* q,
                                 uint64_t* z) {
  lane_sums(d, n, lo, hi, s, a, q, z);
}
TVIS_HOT_LOOP void lane_sums_f64(const double* d, size_t n, double* lo, double* hi, double* s, double* a, double* q,
                                 uint64_t* z) {
  lane_sums(d, n, lo, hi, s, a, q, z);
}
TVIS_HOT_LOOP void count_bins_f32(const float* d, size_t n, double lo, double scale, uint32_t (*h)[kHistogramBins]) {
  count_bins(d, n, lo, scale, h);
}
TVIS_HOT_LOOP void count_bins_f64(const double* d, size_t n, double lo, double scale, uint32_t (*h)[kHistogramBins]) {
  count_bins(d, n, lo, scale, h);
}
void lane_sums_of(const float* d, size_t n, double* lo, double* hi, double* s, double* a, double* q, uint64_t* z) {
  lane_sums_f32(d, n, lo, hi, s, a, q, z);
}
void lane_sums_of(const double* d, size_t n, double* lo, double* hi, double* s, double* a, double* q, uint64_t* z) {
  lane_sums_f64(d, n, lo, hi, s, a, q, z);
}
void count_bins_of(const float* d, size_t n, double lo, double scale, uint32_t (*h)[kHistogramBins]) {
  count_bins_f32(d, n, lo, scale, h);
}
void count_bins_of(const double* d, size_t n, double lo, double scale, uint32_t (*h)[kHistogramBins]) {
  count_bins_f64(d, n, lo, scale, h);
}

template <typename T>
void histogram_of(const T* data, size_t n, double lo, double hi, bool all_finite, std::vector<uint32_t>& out) {
  out.assign(kHistogramBins, 0);
  if (!(hi > lo)) {
    uint64_t c = 0;
    for (size_t i = 0; i < n; ++i) c += all_finite || std::isfinite(static_cast<double>(data[i]));
    out[0] = static_cast<uint32_t>(c);
    return;
  }
  uint32_t h[4][kHistogramBins] = {};
  const double scale = kHistogramBins / (hi - lo);
  if (all_finite) {
    count_bins_of(data, n, lo, scale, h);
  } else {
    for (size_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(data[i]);
      if (!std::isfinite(x)) continue;
      int b = static_cast<int>((x - lo) * scale);
      b = b >= kHistogramBins ? kHistogramBins - 1 : (b < 0 ? 0 : b);
      ++h[i & 3][b];
    }
  }
  for (int b = 0; b < kHistogramBins; ++b) out[b] = h[0][b] + h[1][b] + h[2][b] + h[3][b];
}

template <typename T>
ValueStats stats_of(const T* data, size_t n) {
  ValueStats s;
  s.count = n;
  if (n == 0) return s;
  double lo, hi, sum, sum_abs, sum_sq;
  lane_sums_of(data, n, &lo, &hi, &sum, &sum_abs, &sum_sq, &s.zero_count);
  bool all_finite = std::isfinite(sum) && std::isfinite(sum_sq) && std::isfinite(lo) && std::isfinite(hi);
  if (!all_finite) {  // careful path: count and skip NaN / Inf
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    sum = sum_abs = sum_sq = 0;
    for (size_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(data[i]);
      if (!std::isfinite(x)) {
        if (std::isnan(x)) ++s.nan_count; else ++s.inf_count;
        continue;
      }
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
      sum += x;
      sum_abs += std::fabs(x);
      sum_sq += x * x;
    }
  }
  s.finite_count = n - s.nan_count - s.inf_count;
  if (s.finite_count == 0) return s;
  const double m = static_cast<double>(s.finite_count);
  s.min = lo;
  s.max = hi;
  s.mean = sum / m;
  s.mean_abs = sum_abs / m;
  s.l2 = std::sqrt(sum_sq);
  s.std = std::sqrt(std::fmax(0.0, sum_sq / m - s.mean * s.mean));
  s.hist_lo = lo;
  s.hist_hi = hi;
  histogram_of(data, n, lo, hi, s.nan_count + s.inf_count == 0, s.histogram);
  return s;
}

}  // namespace

Sums sums_of_f32(const float* data, size_t n) {
  Sums s;
  s.count = n;
  if (n == 0) return s;
  lane_sums_of(data, n, &s.lo, &s.hi, &s.sum, &s.sum_abs, &s.sum_sq, &s.zero_count);
  s.finite = std::isfinite(s.sum) && std::isfinite(s.sum_sq) && std::isfinite(s.lo) && std::isfinite(s.hi);
  return s;
}

Sums merge_sums(const Sums& a, const Sums& b) {
  if (a.count == 0) return b;
  if (b.count == 0) return a;
  Sums m;
  m.count = a.count + b.count;
  m.lo = std::fmin(a.lo, b.lo);
  m.hi = std::fmax(a.hi, b.hi);
  m.sum = a.sum + b.sum;
  m.sum_abs = a.sum_abs + b.sum_abs;
  m.sum_sq = a.sum_sq + b.sum_sq;
  m.zero_count = a.zero_count + b.zero_count;
  m.finite = a.finite && b.finite;
  return m;
}

void add_histogram_f32(const float* data, size_t n, double lo, double hi, uint32_t* bins) {
  std::vector<uint32_t> h;
  histogram_of(data, n, lo, hi, true, h);
  for (int b = 0; b < kHistogramBins; ++b) bins[b] += h[b];
}

ValueStats stats_from(const Sums& a, std::vector<uint32_t> histogram) {
  ValueStats s;
  s.count = s.finite_count = a.count;
  s.zero_count = a.zero_count;
  if (a.count == 0) return s;
  const double m = static_cast<double>(a.count);
  s.min = s.hist_lo = a.lo;
  s.max = s.hist_hi = a.hi;
  s.mean = a.sum / m;
  s.mean_abs = a.sum_abs / m;
  s.l2 = std::sqrt(a.sum_sq);
  s.std = std::sqrt(std::fmax(0.0, a.sum_sq / m - s.mean * s.mean));
  s.histogram = std::move(histogram);
  return s;
}

ValueStats stats_of_f32(const float* data, size_t n) { return stats_of(data, n); }
ValueStats stats_of_f64(const double* data, size_t n) { return stats_of(data, n); }

}  // namespace tvis::recorder
