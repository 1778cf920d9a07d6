// tensor_capture.h: one tensor -> a TensorRecord (shape, dtype, exact stats,
// histogram) plus the host bytes of the values kept under the budget.
//
// Contract:
//   - Never modifies `t`, its autograd state, any RNG or flag; runs under a
//     no-grad guard. Statistics are computed where the tensor lives: a CPU
//     tensor in one pass pair over its memory (value_stats.h), any other
//     device with ATen reductions on that device queued in
//     `options.batch` (device_stats.h): the record's statistics (and
//     thumbnail) are filled at the batch's resolve(), before the step's
//     records are written (`stats_pending`); without a batch they are read
//     at once. Only the scalars and the kept values come to the host.
//   - Budget: numel <= max_elems keeps every value (ValuesKept::Full);
//     otherwise the leading rows along dim 0 that fit (at least one row and at
//     least `min_rows` when dim 0 has them; ValuesKept::LeadingRows);
//     `stats_only` keeps none (ValuesKept::None, `size` 0).
//   - `thumbnail`: block means of the tensor seen as [dim 0, the rest]
//     (a vector as one row), at most kThumbnailSide a side, as float32, with
//     adaptive pooling's windows: adaptive_block_means.h for a float32 host
//     tensor the recorder reads in place, torch's adaptive_avg_pool2d
//     otherwise (the same means within float rounding).
//   - `values`/`size` point to the kept bytes, row-major, little-endian, in
//     the tensor's dtype, valid while `keepalive` lives. f32 is true for
//     float32 values (the writer shuffles those by 4-byte planes, unless
//     `mostly_zero`: see run_builder.h).
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>
#include <optional>

#include <tvis/schema/recording_generated.h>

#include "tvis/recorder/device_batch.h"
#include "tvis/recorder/value_stats.h"

namespace tvis::recorder {

constexpr int64_t kThumbnailSide = 32;

/// Rows of `t` kept under `options` (0 when every value is: ValuesKept::Full).
struct CaptureOptions;
int64_t kept_rows_of(const at::Tensor& t, const CaptureOptions& options);

struct CaptureOptions {
  int64_t max_elems = schema::RunConfigT().max_elems;  // the Recorder sets its run's (RunConfig)
  int64_t min_rows = 0;  // rows kept at least (the followed samples)
  bool stats_only = false;  // keep no values (ValuesKept::None): statistics and histogram only
  bool thumbnail = false;   // also a block-mean thumbnail (TensorRecord.thumbnail)
  DeviceBatch* batch = nullptr;  // where device statistics are queued (nullptr: read at once)
};

struct Captured {
  std::unique_ptr<schema::TensorRecordT> rec;
  at::Tensor keepalive;
  const void* values = nullptr;
  uint64_t size = 0;
  bool f32 = false;
  bool mostly_zero = false;  // at least half the values are exactly 0 (CPU tensors; stored unshuffled)
  bool stats_pending = false;  // rec->stats is filled at options.batch's resolve()
};

Captured capture_tensor(const at::Tensor& t, const CaptureOptions& options);

/// A statistics-only record (ValuesKept::None) of a tensor shaped like
/// `like` whose statistics `stats` were computed elsewhere (a Δw summarised
/// a piece at a time).
Captured capture_summary(const at::Tensor& like, const ValueStats& stats);

/// The L2 norm of a small float32 host tensor (contiguous, at most 2^16
/// values: host_f32_loopable), summed in double in one loop (NaN and Inf
/// propagate as in torch); nullopt for any other tensor (the caller uses
/// torch's operators). Reads only, no autograd.
std::optional<double> small_f32_l2_norm(const at::Tensor& t);

/// L2 norms of the first k rows (dim 0) of `t`, in double, computed on its
/// device, handed to `use`: at once for a CPU tensor, at `batch`'s resolve()
/// for a device tensor (or every tensor under device_stats_forced()).
void leading_row_norms(const at::Tensor& t, int64_t k, DeviceBatch& batch,
                       std::function<void(std::vector<double>)> use);

/// after - before in their dtype (no grad): the exact optimizer update.
at::Tensor param_delta(const at::Tensor& after, const at::Tensor& before);
/// The same update written over `before` (same shape, dtype and device as
/// `after`), without allocating.
void param_delta_into(at::Tensor& before, const at::Tensor& after);

/// param_delta_into() and the statistics of the update in one pass over
/// memory, for contiguous float32 CPU tensors of one size (`fused_delta_fits`):
/// the same update bits (IEEE subtraction) and the same statistics as
/// capture_tensor() gives for the materialised update (the same pieces, sums
/// and histogram), each piece summed while it is in cache.
bool fused_delta_fits(const at::Tensor& before, const at::Tensor& after);
ValueStats delta_into_with_stats(at::Tensor& before, const at::Tensor& after);

/// How many of torch's intra-op threads the parallel statistics above reach
/// now: at::get_num_threads() when this file is compiled for the parallel
/// backend torch uses (OpenMP, recorder/CMakeLists.txt), 1 when
/// at::parallel_for falls back to the calling thread alone. The numbers do
/// not depend on it (fixed pieces, merged in order); the time does.
int statistics_threads();

schema::DType to_schema_dtype(c10::ScalarType st);

}  // namespace tvis::recorder
