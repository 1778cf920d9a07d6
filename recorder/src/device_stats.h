// device_stats.h: a tensor's statistics (value_stats.h's fields) computed
// where it lives, queued in the step's DeviceBatch: no read per tensor.
//
// Contract:
//   - queue_device_stats(t, batch, use): queues the reductions of `t` on its
//     device (counts, min/max, sums, deviations from the mean, the
//     kHistogramBins-bin histogram over the device-side [min, max]:
//     index = clamp(floor((x - min) * bins / (max - min)), 0, bins - 1),
//     counted with scatter_add) and calls `use` with the statistics at the
//     batch's resolve(). Nothing waits on the device: min, max and the mean
//     stay device tensors between the passes. Device temporaries are bounded
//     by a slice of kDeviceSliceElems (host_copy.h).
//   - Arithmetic: float64 tensors in float64 (the same bins as value_stats);
//     integer and bool tensors as float64; float32, float16 and bfloat16 in
//     float32 (slow float64 units are never used per element) with a two-level
//     sum: blocks of kSumBlock elements summed in float32, the block sums in
//     float64. Squares are taken of values scaled by a power of two (exact)
//     so that they cannot overflow float32. u = 2^-24:
//       counts (finite, NaN, Inf, zero), min, max:  exact
//       sum, sum |x| (so mean, mean_abs):  |error| <= kSumBlock * u * sum |x|
//                                          (6.1e-5 of sum |x|)
//       sum x^2 (l2^2), sum (x - mean)^2 (std^2): relative error <= 6.2e-5,
//         std^2 also + (mean's error / std)^2
//       histogram: a value within 3u * bins (1.2e-5) of a bin width from a
//         bin edge may count in the neighbouring bin; totals are exact.
//     value_stats' own std (E[x^2] - mean^2 in double) is the less exact of
//     the two when |mean| >> std.
//   - zero_count is exact; histogram empty when no element is finite.
//   - device_stats_forced(): the developer knob TVIS_DEVICE_STATS_ON_CPU=1
//     (read once): CPU tensors take this path too (tests prove the device
//     path's reads and numbers on a machine without a GPU).
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>

#include "tvis/recorder/device_batch.h"
#include "tvis/recorder/value_stats.h"

namespace tvis::recorder {

constexpr int64_t kSumBlock = 1024;

void queue_device_stats(const at::Tensor& t, DeviceBatch& batch, std::function<void(const ValueStats&)> use);

bool device_stats_forced();
/// Whether the recorder's own loops may read `t`'s values in place: a
/// contiguous float32 CPU tensor with storage, and device_stats_forced() off
/// (which sends every tensor through torch's operators instead).
bool host_f32_loopable(const at::Tensor& t);

}  // namespace tvis::recorder
