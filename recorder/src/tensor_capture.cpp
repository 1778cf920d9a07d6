#include "tensor_capture.h"

#include <cmath>
#include <functional>
#include <mutex>
#include <set>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>

#include "device_stats.h"
#include "host_copy.h"
#include "tvis/recorder/adaptive_block_means.h"
#include "tvis/recorder/value_stats.h"

namespace tvis::recorder {
namespace {

void fill_stats(schema::StatsT& out, const ValueStats& s) {
  out.count = s.count;
  out.finite_count = s.finite_count;
  out.nan_count = s.nan_count;
  out.inf_count = s.inf_count;
  out.min = s.min;
  out.max = s.max;
  out.mean = s.mean;
  out.std = s.std;
  out.mean_abs = s.mean_abs;
  out.l2 = s.l2;
  out.hist_lo = s.hist_lo;
  out.hist_hi = s.hist_hi;
  out.histogram = s.histogram;
}

// float32 values from which statistics are summed in fixed pieces (on as many
// of torch's threads as there are, one or more: the numbers are the same).
constexpr size_t kParallelMin = size_t(1) << 19;

// float32 on the CPU in pieces on torch's intra-op threads (idle while a hook
// runs); the same numbers as stats_of_f32 up to summation order. `prepare`
// (optional) writes a piece's values first (a fused update), while it is summed in cache.
ValueStats parallel_stats_f32(const float* p, size_t n,
                              const std::function<void(size_t begin, size_t count)>& prepare = nullptr) {
  constexpr int64_t kPiece = 1 << 18;
  const int64_t pieces = static_cast<int64_t>((n + kPiece - 1) / kPiece);
  std::vector<Sums> sums(pieces);
  at::parallel_for(0, pieces, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const size_t m = std::min<size_t>(kPiece, n - i * kPiece);
      if (prepare) prepare(static_cast<size_t>(i * kPiece), m);
      sums[i] = sums_of_f32(p + i * kPiece, m);
    }
  });
  Sums all;
  for (const auto& s : sums) all = merge_sums(all, s);
  if (!all.finite) return stats_of_f32(p, n);
  std::vector<uint32_t> bins(static_cast<size_t>(pieces) * kHistogramBins, 0);
  at::parallel_for(0, pieces, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      add_histogram_f32(p + i * kPiece, std::min<size_t>(kPiece, n - i * kPiece), all.lo, all.hi,
                        bins.data() + i * kHistogramBins);
  });
  std::vector<uint32_t> hist(kHistogramBins, 0);
  for (int64_t i = 0; i < pieces; ++i)
    for (int b = 0; b < kHistogramBins; ++b) hist[b] += bins[i * kHistogramBins + b];
  return stats_from(all, std::move(hist));
}

// Host path: `x` is a contiguous CPU tensor.
ValueStats host_stats(const at::Tensor& x) {
  const size_t n = static_cast<size_t>(x.numel());
  switch (x.scalar_type()) {
    case at::kFloat:
      if (n >= kParallelMin) return parallel_stats_f32(x.data_ptr<float>(), n);
      return stats_of_f32(x.data_ptr<float>(), n);
    case at::kDouble: return stats_of_f64(x.data_ptr<double>(), n);
    case at::kHalf:
    case at::kBFloat16: {
      at::Tensor f = x.to(at::kFloat);
      return stats_of_f32(f.data_ptr<float>(), n);
    }
    default: {
      at::Tensor d = x.to(at::kDouble);
      return stats_of_f64(d.data_ptr<double>(), n);
    }
  }
}

}  // namespace

int statistics_threads() {
  std::mutex mu;
  std::set<int> seen;
  at::parallel_for(0, at::get_num_threads(), 1, [&](int64_t, int64_t) {
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(at::get_thread_num());
  });
  return static_cast<int>(seen.size());
}

schema::DType to_schema_dtype(c10::ScalarType st) {
  switch (st) {
    case at::kFloat: return schema::DType::Float32;
    case at::kDouble: return schema::DType::Float64;
    case at::kHalf: return schema::DType::Float16;
    case at::kBFloat16: return schema::DType::BFloat16;
    case at::kLong: return schema::DType::Int64;
    case at::kInt: return schema::DType::Int32;
    case at::kShort: return schema::DType::Int16;
    case at::kChar: return schema::DType::Int8;
    case at::kByte: return schema::DType::UInt8;
    case at::kBool: return schema::DType::Bool;
    case at::kComplexFloat: return schema::DType::Complex64;
    case at::kComplexDouble: return schema::DType::Complex128;
    default: return schema::DType::Unknown;
  }
}

int64_t kept_rows_of(const at::Tensor& t, const CaptureOptions& options) {
  const int64_t n = t.numel();
  if (n <= options.max_elems || t.dim() == 0) return 0;
  const int64_t dim0 = t.size(0);
  const int64_t row = dim0 > 0 ? n / dim0 : 1;
  int64_t rows = std::max<int64_t>(1, options.max_elems / std::max<int64_t>(row, 1));
  rows = std::max(rows, std::min(options.min_rows, dim0));
  return std::min(rows, dim0);
}

namespace {

/// Block means of `t` as [dim 0, rest] at most kThumbnailSide a side (a
/// vector as one row); non-finite values make their block non-finite. A
/// device tensor's (or any, forced) comes through `batch` when there is one.
void add_thumbnail(const at::Tensor& t, schema::TensorRecordT& r, DeviceBatch* batch) {
  if (t.dim() == 0 || t.numel() == 0 || !(t.is_floating_point() || t.scalar_type() == at::kLong ||
                                          t.scalar_type() == at::kInt || t.scalar_type() == at::kByte))
    return;
  const int64_t rows = t.dim() == 1 ? 1 : t.size(0);
  const int64_t cols = t.numel() / rows;
  if (host_f32_loopable(t)) {  // one pass of our own (torch's pooling of one channel runs serially, ~1-2 ns a value)
    r.thumbnail = adaptive_block_means_f32(t.data_ptr<float>(), rows, cols, kThumbnailSide, kThumbnailSide);
    r.thumbnail_shape = {static_cast<int32_t>(std::min(rows, kThumbnailSide)),
                         static_cast<int32_t>(std::min(cols, kThumbnailSide))};
    return;
  }
  const at::Tensor grid = t.reshape({1, 1, rows, cols}).to(at::kFloat);
  const at::Tensor small = at::adaptive_avg_pool2d(grid, {std::min(rows, kThumbnailSide), std::min(cols, kThumbnailSide)});
  r.thumbnail_shape = {static_cast<int32_t>(small.size(2)), static_cast<int32_t>(small.size(3))};
  if (batch && (!t.device().is_cpu() || device_stats_forced())) {
    std::vector<float>* out = &r.thumbnail;  // the record outlives the batch's resolve()
    batch->add(small, [out](const double* v, int64_t n) { out->assign(v, v + n); });  // float values: exact
    return;
  }
  const at::Tensor host = small.contiguous().cpu();
  const float* v = host.data_ptr<float>();
  r.thumbnail.assign(v, v + host.numel());
}

Captured header_of(const at::Tensor& t) {
  Captured c;
  c.rec = std::make_unique<schema::TensorRecordT>();
  auto& r = *c.rec;
  r.shape.assign(t.sizes().begin(), t.sizes().end());
  r.dtype = to_schema_dtype(t.scalar_type());
  r.device = t.device().str();
  r.requires_grad = t.requires_grad();
  r.stats = std::make_unique<schema::StatsT>();
  return c;
}

}  // namespace

Captured capture_summary(const at::Tensor& like, const ValueStats& stats) {
  Captured c = header_of(like);
  fill_stats(*c.rec->stats, stats);
  c.mostly_zero = stats.count > 0 && stats.zero_count * 2 >= stats.count;
  c.rec->kept = schema::ValuesKept::None;
  return c;
}

Captured capture_tensor(const at::Tensor& t_in, const CaptureOptions& options) {
  c10::NoGradGuard no_grad;
  Captured c = header_of(t_in);
  auto& r = *c.rec;
  const at::Tensor t = t_in.detach();
  if (t.is_complex() || r.dtype == schema::DType::Unknown || !t.has_storage()) {
    r.stats->count = static_cast<uint64_t>(t.numel());
    return c;  // statistics of complex / exotic tensors are not defined here
  }
  const bool on_cpu = t.device().is_cpu();
  at::Tensor host = on_cpu ? t.contiguous() : at::Tensor();
  if (on_cpu && !device_stats_forced()) {
    const ValueStats vs = host_stats(host);
    fill_stats(*r.stats, vs);
    c.mostly_zero = vs.count > 0 && vs.zero_count * 2 >= vs.count;
  } else {
    // Queued on the device; the record (owned by the run builder until the
    // step's records are written) gets its numbers at the batch's resolve().
    DeviceBatch local;
    schema::StatsT* out = r.stats.get();
    queue_device_stats(t, options.batch ? *options.batch : local, [out](const ValueStats& vs) { fill_stats(*out, vs); });
    if (local.pending()) local.resolve();
    c.stats_pending = options.batch && options.batch->pending();
  }

  if (options.thumbnail) add_thumbnail(t, r, options.batch);
  // What is kept of the values.
  if (options.stats_only) {
    r.kept = schema::ValuesKept::None;
    return c;
  }
  const int64_t rows = kept_rows_of(t, options);
  if (rows == 0) {
    r.kept = schema::ValuesKept::Full;
  } else {
    r.kept = schema::ValuesKept::LeadingRows;
    r.kept_rows = rows;
  }
  at::Tensor kept = r.kept == schema::ValuesKept::Full ? (on_cpu ? host : t) : t.narrow(0, 0, rows);
  kept = on_cpu ? kept.contiguous() : host_copy(kept);  // through the bounded pinned pool
  c.keepalive = kept;
  c.values = kept.data_ptr();
  c.size = static_cast<uint64_t>(kept.numel()) * kept.element_size();
  c.f32 = kept.scalar_type() == at::kFloat;
  return c;
}

bool fused_delta_fits(const at::Tensor& before, const at::Tensor& after) {
  return host_f32_loopable(before) && host_f32_loopable(after) && before.numel() == after.numel() &&
         before.data_ptr() != after.data_ptr();
}

ValueStats delta_into_with_stats(at::Tensor& before, const at::Tensor& after) {
  float* d = before.data_ptr<float>();
  const float* a = after.data_ptr<float>();
  const size_t n = static_cast<size_t>(before.numel());
  const auto subtract = [d, a](size_t i0, size_t m) {
    for (size_t j = i0; j < i0 + m; ++j) d[j] = a[j] - d[j];
  };
  if (n >= kParallelMin) return parallel_stats_f32(d, n, subtract);
  subtract(0, n);
  return stats_of_f32(d, n);
}

at::Tensor param_delta(const at::Tensor& after, const at::Tensor& before) {
  c10::NoGradGuard no_grad;
  return at::sub(after.detach(), before.detach());
}

void param_delta_into(at::Tensor& before, const at::Tensor& after) {
  c10::NoGradGuard no_grad;
  at::sub_out(before, after.detach(), before);
}

namespace {

// The first k rows of a small contiguous float32 CPU tensor (at most
// kSmallRowValues values in them): their norms in one loop here, not six
// torch operators (a gradient's per-sample norms at every module's backward).
constexpr int64_t kSmallRowValues = 1 << 16;

bool small_f32_rows(const at::Tensor& t, int64_t k) {
  return host_f32_loopable(t) && t.size(0) > 0 && k * (t.numel() / t.size(0)) <= kSmallRowValues;
}

// Squares summed in double over eight interleaved lanes, then the lanes in
// order: the norms of torch's double reduction up to summation order.
std::vector<double> row_norms_f32(const float* p, int64_t k, int64_t row) {
  std::vector<double> out(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) {
    const float* r = p + i * row;
    double lane[8] = {};
    int64_t j = 0;
    for (; j + 8 <= row; j += 8)
      for (int l = 0; l < 8; ++l) lane[l] += static_cast<double>(r[j + l]) * static_cast<double>(r[j + l]);
    double sum = 0;
    for (int l = 0; l < 8; ++l) sum += lane[l];
    for (; j < row; ++j) sum += static_cast<double>(r[j]) * static_cast<double>(r[j]);
    out[static_cast<size_t>(i)] = std::sqrt(sum);
  }
  return out;
}

}  // namespace

std::optional<double> small_f32_l2_norm(const at::Tensor& t) {
  if (t.is_sparse() || !host_f32_loopable(t) || t.numel() > kSmallRowValues) return std::nullopt;
  if (t.numel() == 0) return 0.0;
  return row_norms_f32(t.data_ptr<float>(), 1, t.numel())[0];
}

void leading_row_norms(const at::Tensor& t, int64_t k, DeviceBatch& batch,
                       std::function<void(std::vector<double>)> use) {
  c10::NoGradGuard no_grad;
  if (t.dim() == 0 || k <= 0 || !at::isFloatingType(t.scalar_type())) return use({});
  k = std::min<int64_t>(k, t.size(0));
  if (k == 0) return use({});
  if (small_f32_rows(t, k)) return use(row_norms_f32(t.data_ptr<float>(), k, t.numel() / t.size(0)));
  at::Tensor rows = t.detach().narrow(0, 0, k).reshape({k, -1}).to(at::kDouble);
  at::Tensor norms = rows.pow(2).sum(1).sqrt();
  if (!t.device().is_cpu() || device_stats_forced()) {
    batch.add(norms, [use = std::move(use)](const double* v, int64_t n) { use(std::vector<double>(v, v + n)); });
    return;
  }
  auto a = norms.accessor<double, 1>();
  std::vector<double> out;
  for (int64_t i = 0; i < k; ++i) out.push_back(a[i]);
  use(std::move(out));
}

}  // namespace tvis::recorder
