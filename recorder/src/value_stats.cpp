#include "tvis/recorder/value_stats.h"

#include <cmath>
#include <cstring>
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

// Eight lanes as GCC/Clang vector types: the compiler maps them onto the
// widest registers the target has (one zmm, two ymm or four xmm per double
// vector), with the same per-lane arithmetic on every target.
template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  typedef float V __attribute__((vector_size(32)));
  typedef int32_t Mask __attribute__((vector_size(32)));
};
template <>
struct Lanes<double> {
  typedef double V __attribute__((vector_size(64)));
  typedef int64_t Mask __attribute__((vector_size(64)));
};
typedef double V8d __attribute__((vector_size(64)));
typedef int64_t V8l __attribute__((vector_size(64)));
typedef uint64_t V8u __attribute__((vector_size(64)));
static_assert(kLanes == 8, "the vector types hold eight lanes");

// Pass 1 without branches: per-lane min/max, double sums and the count of
// exact zeros; lane l takes elements l, l + 8, l + 16, ... and the lanes are
// combined in order at the end. Any NaN or Inf makes `sum` non-finite, which
// sends the caller to the careful path (the zero count stays exact: NaN != 0).
template <typename T>
inline __attribute__((always_inline)) void lane_sums(const T* data, size_t n, double* lo, double* hi, double* sum,
                                                     double* sum_abs, double* sum_sq, uint64_t* zeros) {
  using V = typename Lanes<T>::V;
  const T first = n ? data[0] : T(0);
  V mn = V{} + first, mx = V{} + first;
  V8d s = {}, a = {}, q = {};
  V8l z = {};
  const V8u abs_mask = V8u{} + 0x7fffffffffffffffull;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    V x;
    std::memcpy(&x, data + i, sizeof x);
    mn = x < mn ? x : mn;
    mx = x > mx ? x : mx;
    const V8d d = __builtin_convertvector(x, V8d);
    s += d;
    a += reinterpret_cast<V8d>(reinterpret_cast<V8u>(d) & abs_mask);
    q += d * d;
    z -= __builtin_convertvector(x == V{}, V8l);  // true is -1
  }
  T mn_tail = mn[0], mx_tail = mx[0];
  double s0 = s[0], a0 = a[0], q0 = q[0];
  uint64_t z0 = static_cast<uint64_t>(z[0]);
  for (; i < n; ++i) {
    const T x = data[i];
    mn_tail = x < mn_tail ? x : mn_tail;
    mx_tail = x > mx_tail ? x : mx_tail;
    const double d = static_cast<double>(x);
    s0 += d;
    a0 += std::fabs(d);
    q0 += d * d;
    z0 += x == T(0);
  }
  *lo = static_cast<double>(mn_tail);
  *hi = static_cast<double>(mx_tail);
  *sum = s0;
  *sum_abs = a0;
  *sum_sq = q0;
  *zeros = z0;
  for (int l = 1; l < kLanes; ++l) {
    *lo = std::fmin(*lo, static_cast<double>(mn[l]));
    *hi = std::fmax(*hi, static_cast<double>(mx[l]));
    *sum += s[l];
    *sum_abs += a[l];
    *sum_sq += q[l];
    *zeros += static_cast<uint64_t>(z[l]);
  }
}

// Histogram of finite values over [lo, hi]: bin = floor((x - lo) * scale)
// clamped to [0, bins - 1], in arithmetic type S, W lanes at once. Indices
// are computed a block at a time (explicit vectors with the same
// per-element arithmetic as the scalar tail: the compiler's own
// vectorization of this loop needs -O3, which slows lane_sums down), then
// counted into four sub-histograms that break the store-to-load dependency
// of repeated bins.
template <typename T, typename S, int W>
inline __attribute__((always_inline)) void count_bins_as(const T* data, size_t n, S lo, S scale,
                                                         uint32_t (*h)[kHistogramBins]) {
  typedef T VT __attribute__((vector_size(W * sizeof(T))));
  typedef S VS __attribute__((vector_size(W * sizeof(S))));
  typedef int32_t VI __attribute__((vector_size(W * sizeof(int32_t))));
  int32_t idx[kBinBlock];
  const S top = kHistogramBins - 1;
  const VS vlo = VS{} + lo, vscale = VS{} + scale, vtop = VS{} + top, vzero = VS{};
  for (size_t i0 = 0; i0 < n; i0 += kBinBlock) {
    const size_t m = n - i0 < kBinBlock ? n - i0 : kBinBlock;
    size_t j = 0;
    for (; j + W <= m; j += W) {
      VT x;
      std::memcpy(&x, data + i0 + j, sizeof x);
      VS t = (__builtin_convertvector(x, VS) - vlo) * vscale;
      t = t > vzero ? t : vzero;
      t = t < vtop ? t : vtop;
      const VI b = __builtin_convertvector(t, VI);  // truncation: t >= 0, so floor
      std::memcpy(idx + j, &b, sizeof b);
    }
    for (; j < m; ++j) {
      S t = (static_cast<S>(data[i0 + j]) - lo) * scale;
      t = t > 0 ? t : 0;
      t = t < top ? t : top;
      idx[j] = static_cast<int32_t>(t);
    }
    j = 0;
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
// True when a range of kHistogramBins / scale can be binned in float32: the
// width is at most half of FLT_MAX (x - lo stays finite when rounded) and
// scale is a normal float.
bool float_bins_safe(double scale) {
  const double width = kHistogramBins / scale;
  return width <= std::numeric_limits<float>::max() / 2 && scale <= std::numeric_limits<float>::max() &&
         scale >= std::numeric_limits<float>::min();
}

// float32 values in float32 arithmetic, sixteen lanes at once, when the range
// allows: lo and scale rounded to float, so a value within about 1.2e-5 of a
// bin width from an edge may land in the neighbouring bin. Otherwise, and for
// float64, in double, eight lanes: the same bin as histogram_bin() for all
// but values a rounding away from a bin edge.
TVIS_HOT_LOOP void count_bins_f32(const float* d, size_t n, double lo, double scale, uint32_t (*h)[kHistogramBins]) {
  if (float_bins_safe(scale))
    count_bins_as<float, float, 16>(d, n, static_cast<float>(lo), static_cast<float>(scale), h);
  else
    count_bins_as<float, double, kLanes>(d, n, lo, scale, h);
}
TVIS_HOT_LOOP void count_bins_f64(const double* d, size_t n, double lo, double scale, uint32_t (*h)[kHistogramBins]) {
  count_bins_as<double, double, kLanes>(d, n, lo, scale, h);
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
