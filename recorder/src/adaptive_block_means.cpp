#include "tvis/recorder/adaptive_block_means.h"

#include <algorithm>

namespace tvis::recorder {

namespace {

/// Adaptive pooling's window of output index `i` over `n` inputs in `out` parts.
int64_t window_start(int64_t i, int64_t n, int64_t out) { return i * n / out; }
int64_t window_end(int64_t i, int64_t n, int64_t out) { return ((i + 1) * n + out - 1) / out; }

/// Sum of x[0, n) in double: four accumulators (independent adds), combined in a fixed order.
double sum_run(const float* x, int64_t n) {
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    a0 += double(x[k]);
    a1 += double(x[k + 1]);
    a2 += double(x[k + 2]);
    a3 += double(x[k + 3]);
  }
  for (; k < n; ++k) a0 += double(x[k]);
  return (a0 + a1) + (a2 + a3);
}

}  // namespace

std::vector<float> adaptive_block_means_f32(const float* values, int64_t rows, int64_t cols,
                                            int64_t out_rows, int64_t out_cols) {
  std::vector<float> means;
  if (rows <= 0 || cols <= 0 || out_rows <= 0 || out_cols <= 0) return means;
  out_rows = std::min(out_rows, rows);
  out_cols = std::min(out_cols, cols);
  const size_t n_cols = static_cast<size_t>(out_cols);
  std::vector<int64_t> col_start(n_cols), col_end(n_cols);
  for (int64_t j = 0; j < out_cols; ++j) {
    col_start[size_t(j)] = window_start(j, cols, out_cols);
    col_end[size_t(j)] = window_end(j, cols, out_cols);
  }
  std::vector<double> sums(static_cast<size_t>(out_rows) * n_cols, 0.0), row_sums(n_cols);
  int64_t first_block = 0;  // the first output row whose window has not ended yet
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = values + r * cols;
    for (int64_t j = 0; j < out_cols; ++j)
      row_sums[size_t(j)] = sum_run(x + col_start[size_t(j)], col_end[size_t(j)] - col_start[size_t(j)]);
    while (window_end(first_block, rows, out_rows) <= r) ++first_block;
    for (int64_t i = first_block; i < out_rows && window_start(i, rows, out_rows) <= r; ++i) {
      double* block = sums.data() + i * out_cols;
      for (int64_t j = 0; j < out_cols; ++j) block[j] += row_sums[size_t(j)];
    }
  }
  means.resize(sums.size());
  for (int64_t i = 0; i < out_rows; ++i) {
    const double n_rows = double(window_end(i, rows, out_rows) - window_start(i, rows, out_rows));
    for (int64_t j = 0; j < out_cols; ++j) {
      const double n = n_rows * double(col_end[size_t(j)] - col_start[size_t(j)]);
      means[size_t(i * out_cols + j)] = float(sums[size_t(i * out_cols + j)] / n);
    }
  }
  return means;
}

}  // namespace tvis::recorder
