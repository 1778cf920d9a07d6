#include "device_stats.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "host_copy.h"

namespace tvis::recorder {
namespace {

// Layout of one tensor's row in the batch.
enum Field { kFinite, kNan, kZero, kLo, kHi, kSum, kSumAbs, kSumSq, kDev, kFields };

bool in_float32(const at::Tensor& v) { return v.scalar_type() == at::kFloat; }

/// The values as the reductions see them: float32 for 32/16-bit floats,
/// float64 for float64, integers and bool.
at::Tensor as_values(const at::Tensor& slice) {
  switch (slice.scalar_type()) {
    case at::kFloat:
    case at::kDouble: return slice;
    case at::kHalf:
    case at::kBFloat16: return slice.to(at::kFloat);
    default: return slice.to(at::kDouble);
  }
}

/// Sum of a 1-d tensor as a float64 0-d tensor: float64 input summed as
/// it is; float32 in blocks of kSumBlock (float32), the block sums in float64.
at::Tensor block_sum(const at::Tensor& v) {
  if (!in_float32(v)) return v.sum();
  const int64_t n = v.numel();
  const int64_t full = n / kSumBlock;
  at::Tensor total = at::zeros({}, v.options().dtype(at::kDouble));
  if (full > 0) total = total + v.narrow(0, 0, full * kSumBlock).view({full, kSumBlock}).sum(1).to(at::kDouble).sum();
  if (n > full * kSumBlock) total = total + v.narrow(0, full * kSumBlock, n - full * kSumBlock).sum().to(at::kDouble);
  return total;
}

at::Tensor count_of(const at::Tensor& mask) { return mask.sum().to(at::kDouble); }

}  // namespace

bool device_stats_forced() {
  static const bool forced = [] {
    const char* v = std::getenv("TVIS_DEVICE_STATS_ON_CPU");
    return v && std::strcmp(v, "1") == 0;
  }();
  return forced;
}

bool host_f32_loopable(const at::Tensor& t) {
  return !device_stats_forced() && t.device().is_cpu() && t.scalar_type() == at::kFloat &&
         t.layout() == at::kStrided && t.has_storage() && t.is_contiguous();
}

void queue_device_stats(const at::Tensor& t_in, DeviceBatch& batch, std::function<void(const ValueStats&)> use) {
  c10::NoGradGuard no_grad;
  const at::Tensor t = t_in.detach();
  const uint64_t count = static_cast<uint64_t>(t.numel());
  if (count == 0) {
    ValueStats s;
    use(s);
    return;
  }
  const auto dbl = t.options().dtype(at::kDouble);
  const double inf = std::numeric_limits<double>::infinity();
  // Pass 1: counts, min, max; combined across slices on the device.
  at::Tensor finite = at::zeros({}, dbl), nans = at::zeros({}, dbl), zeros = at::zeros({}, dbl);
  at::Tensor lo = at::full({}, inf, dbl), hi = at::full({}, -inf, dbl);
  for_each_slice(t, kDeviceSliceElems, [&](const at::Tensor& slice) {
    const at::Tensor v = as_values(slice);
    const at::Tensor bad = at::isfinite(v).logical_not();
    finite = finite - count_of(bad) + static_cast<double>(v.numel());
    nans = nans + count_of(at::isnan(v));
    zeros = zeros + count_of(v.eq(0));
    lo = at::minimum(lo, v.masked_fill(bad, inf).amin().to(at::kDouble));
    hi = at::maximum(hi, v.masked_fill(bad, -inf).amax().to(at::kDouble));
  });
  // Power-of-two scale putting |x| and |x - mean| / 2 below 1 (float32 only):
  // 2^-e with amax = m * 2^e, 0.5 <= m < 1; e clamped so the scale is a
  // normal float32.
  const at::Tensor amax = at::maximum(lo.abs(), hi.abs()).nan_to_num(0, 0, 0);
  const at::Tensor e = std::get<1>(at::frexp(amax)).to(at::kDouble).clamp(-100, 126);
  const at::Tensor scale = at::pow(2.0, e.neg());  // float64, exact
  const at::Tensor range = hi - lo;
  // bins / (max - min); 0 when every finite value is the same (all in bin 0)
  const at::Tensor bin_scale = at::where(range.gt(0), range.reciprocal() * static_cast<double>(kHistogramBins), at::zeros({}, dbl))
                                   .nan_to_num(0, 0, 0);
  // Pass 2: the sums (float32: of the scaled values, which cannot overflow).
  at::Tensor sum = at::zeros({}, dbl), sum_abs = at::zeros({}, dbl), sum_sq = at::zeros({}, dbl);
  for_each_slice(t, kDeviceSliceElems, [&](const at::Tensor& slice) {
    const at::Tensor v = as_values(slice);
    const at::Tensor bad = at::isfinite(v).logical_not();
    if (in_float32(v)) {
      const at::Tensor x = v.masked_fill(bad, 0) * scale.to(at::kFloat);
      sum = sum + block_sum(x) / scale;
      sum_abs = sum_abs + block_sum(x.abs()) / scale;
      sum_sq = sum_sq + block_sum(x * x) / (scale * scale);
    } else {
      const at::Tensor x = v.masked_fill(bad, 0);
      sum = sum + x.sum();
      sum_abs = sum_abs + x.abs().sum();
      sum_sq = sum_sq + (x * x).sum();
    }
  });
  const at::Tensor mean = sum / at::clamp_min(finite, 1);
  // Pass 3: deviations from the mean, the histogram.
  at::Tensor dev = at::zeros({}, dbl);
  at::Tensor hist = at::zeros({kHistogramBins + 1}, t.options().dtype(at::kLong));
  for_each_slice(t, kDeviceSliceElems, [&](const at::Tensor& slice) {
    const at::Tensor v = as_values(slice);
    const at::Tensor bad = at::isfinite(v).logical_not();
    at::Tensor index;
    if (in_float32(v)) {
      // (x - mean) * scale / 2 from the scaled terms: no overflow, |d| <= 4
      const at::Tensor half = (scale * 0.5).to(at::kFloat);
      const at::Tensor d = (v * half - (mean * scale * 0.5).to(at::kFloat)).masked_fill(bad, 0);
      dev = dev + block_sum(d * d) / (scale * scale * 0.25);
      // (x - lo) halved so that it cannot overflow float32
      const at::Tensor pos = (v * 0.5f - lo.to(at::kFloat) * 0.5f) * (bin_scale * 2.0).to(at::kFloat);
      index = pos.nan_to_num(0, kHistogramBins - 1, 0).clamp(0, kHistogramBins - 1).to(at::kLong);
    } else {
      const at::Tensor d = (v - mean).masked_fill(bad, 0);
      dev = dev + (d * d).sum();
      index = ((v - lo) * bin_scale).nan_to_num(0, kHistogramBins - 1, 0).clamp(0, kHistogramBins - 1).to(at::kLong);
    }
    index = index.masked_fill(bad, kHistogramBins);  // non-finite values: the dropped extra bin
    hist.scatter_add_(0, index, at::ones_like(index));
  });
  const at::Tensor row =
      at::cat({at::stack({finite, nans, zeros, lo, hi, sum, sum_abs, sum_sq, dev}),
               hist.narrow(0, 0, kHistogramBins).to(at::kDouble)});
  batch.add(row, [count, use = std::move(use)](const double* r, int64_t) {
    ValueStats s;
    s.count = count;
    s.finite_count = static_cast<uint64_t>(r[kFinite]);
    s.nan_count = static_cast<uint64_t>(r[kNan]);
    s.inf_count = count - s.finite_count - s.nan_count;
    s.zero_count = static_cast<uint64_t>(r[kZero]);
    if (s.finite_count > 0) {
      const double m = static_cast<double>(s.finite_count);
      s.min = s.hist_lo = r[kLo];
      s.max = s.hist_hi = r[kHi];
      s.mean = r[kSum] / m;
      s.mean_abs = r[kSumAbs] / m;
      s.l2 = std::sqrt(r[kSumSq]);
      s.std = std::sqrt(std::fmax(0.0, r[kDev]) / m);
      s.histogram.resize(kHistogramBins);
      for (int b = 0; b < kHistogramBins; ++b) s.histogram[b] = static_cast<uint32_t>(r[kFields + b]);
    }
    use(s);
  });
}

}  // namespace tvis::recorder
