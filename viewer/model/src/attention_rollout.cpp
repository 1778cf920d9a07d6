#include "tvis/viewer_model/attention_rollout.h"

#include <cmath>

namespace tvis::viewer {

double AttentionWeights::at(int h, int r, int c) const {
  const size_t plane = static_cast<size_t>(rows) * cols;
  const size_t cell = static_cast<size_t>(r) * cols + c;
  if (h >= 0) return w[h * plane + cell];
  double sum = 0;
  for (int k = 0; k < heads; ++k) sum += w[k * plane + cell];
  return heads > 0 ? sum / heads : 0.0;
}

AttentionWeights attention_weights(const std::vector<double>& values, const std::vector<int64_t>& shape,
                                   std::string* problem) {
  AttentionWeights a;
  if (shape.size() == 3) {
    a.heads = static_cast<int>(shape[0]);
    a.rows = static_cast<int>(shape[1]);
    a.cols = static_cast<int>(shape[2]);
  } else if (shape.size() == 2) {
    a.heads = 1;
    a.rows = static_cast<int>(shape[0]);
    a.cols = static_cast<int>(shape[1]);
  } else {
    *problem = "attention weights of rank " + std::to_string(shape.size()) + " (expected [heads, T, T])";
    return {};
  }
  const size_t n = static_cast<size_t>(a.heads) * a.rows * a.cols;
  if (a.heads <= 0 || a.rows <= 0 || a.cols <= 0 || values.size() < n) {
    *problem = "attention weights hold " + std::to_string(values.size()) + " values, fewer than their shape";
    return {};
  }
  a.w.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n));
  return a;
}

int patch_grid_side(int t, bool* cls) {
  for (int extra : {0, 1}) {
    const int n = static_cast<int>(std::lround(std::sqrt(static_cast<double>(t - extra))));
    if (n >= 2 && n * n == t - extra) {
      *cls = extra == 1;
      return n;
    }
  }
  return 0;
}

std::vector<double> query_row_on_grid(const std::vector<double>& square, int t, int query, int n, bool cls) {
  std::vector<double> grid;
  if (n <= 0 || query < 0 || query >= t || n * n + (cls ? 1 : 0) != t ||
      square.size() < static_cast<size_t>(t) * t)
    return grid;
  grid.resize(static_cast<size_t>(n) * n);
  for (int k = 0; k < n * n; ++k) grid[k] = square[static_cast<size_t>(query) * t + k + (cls ? 1 : 0)];
  return grid;
}

std::vector<double> head_mean(const AttentionWeights& a) {
  std::vector<double> out(static_cast<size_t>(a.rows) * a.cols);
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c) out[static_cast<size_t>(r) * a.cols + c] = a.at(-1, r, c);
  return out;
}

namespace {

// rownorm(mean_h W + I), T x T.
std::vector<double> augmented(const AttentionWeights& a) {
  std::vector<double> m = head_mean(a);
  const int t = a.rows;
  for (int r = 0; r < t; ++r) {
    double* row = &m[static_cast<size_t>(r) * t];
    row[r] += 1.0;
    double sum = 0;
    for (int c = 0; c < t; ++c) sum += row[c];
    for (int c = 0; c < t; ++c) row[c] /= sum;
  }
  return m;
}

// out = a · b, all T x T.
std::vector<double> multiply(const std::vector<double>& a, const std::vector<double>& b, int t) {
  std::vector<double> out(static_cast<size_t>(t) * t, 0.0);
  for (int r = 0; r < t; ++r)
    for (int k = 0; k < t; ++k) {
      const double v = a[static_cast<size_t>(r) * t + k];
      if (v == 0) continue;
      const double* brow = &b[static_cast<size_t>(k) * t];
      double* orow = &out[static_cast<size_t>(r) * t];
      for (int c = 0; c < t; ++c) orow[c] += v * brow[c];
    }
  return out;
}

}  // namespace

std::vector<double> attention_rollout(const std::vector<const AttentionWeights*>& layers, std::string* problem) {
  if (layers.empty()) {
    *problem = "no layers in the rollout range";
    return {};
  }
  const int t = layers.front()->rows;
  for (size_t i = 0; i < layers.size(); ++i) {
    const AttentionWeights& a = *layers[i];
    if (a.rows != a.cols || a.rows != t) {
      *problem = "layer " + std::to_string(i + 1) + " of the range is " + std::to_string(a.rows) + "x" +
                 std::to_string(a.cols) + ", not " + std::to_string(t) + "x" + std::to_string(t) +
                 ": rollout needs square maps of one size";
      return {};
    }
  }
  std::vector<double> r = augmented(*layers.front());
  for (size_t i = 1; i < layers.size(); ++i) r = multiply(augmented(*layers[i]), r, t);
  return r;
}

bool is_causal(const std::vector<double>& square, int t) {
  if (t < 2 || square.size() < static_cast<size_t>(t) * t) return false;
  bool below = false;
  for (int r = 0; r < t; ++r)
    for (int c = 0; c < t; ++c) {
      const double v = square[static_cast<size_t>(r) * t + c];
      if (c > r && v != 0) return false;
      if (c < r && v != 0) below = true;
    }
  return below;
}

bool is_causal_mask(const std::vector<double>& mask, int t) {
  if (t < 2 || mask.size() < static_cast<size_t>(t) * t) return false;
  for (int r = 0; r < t; ++r)
    for (int c = 0; c < t; ++c)
      if ((mask[static_cast<size_t>(r) * t + c] != 0) != (c > r)) return false;
  return true;
}

}  // namespace tvis::viewer
