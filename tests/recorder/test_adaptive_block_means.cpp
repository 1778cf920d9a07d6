// adaptive_block_means_f32 against a direct computation of adaptive pooling's windows.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tvis/recorder/adaptive_block_means.h"

using tvis::recorder::adaptive_block_means_f32;

namespace {

/// Each block's mean summed straight from its window's definition.
std::vector<double> reference(const std::vector<float>& v, int64_t rows, int64_t cols, int64_t out_rows,
                              int64_t out_cols) {
  std::vector<double> out;
  for (int64_t i = 0; i < out_rows; ++i)
    for (int64_t j = 0; j < out_cols; ++j) {
      const int64_t r0 = i * rows / out_rows, r1 = ((i + 1) * rows + out_rows - 1) / out_rows;
      const int64_t c0 = j * cols / out_cols, c1 = ((j + 1) * cols + out_cols - 1) / out_cols;
      double s = 0;
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) s += v[size_t(r * cols + c)];
      out.push_back(s / double((r1 - r0) * (c1 - c0)));
    }
  return out;
}

std::vector<float> normal_values(size_t n, float mean) {
  std::mt19937 rng(7);
  std::normal_distribution<float> d(mean, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace

TEST_CASE("block means equal adaptive pooling's windows, overlapping or not", "[thumbnail]") {
  const struct {
    int64_t rows, cols;
  } shapes[] = {{64, 128}, {100, 77}, {33, 1000}, {5, 3}, {1, 1000}, {1000, 1}, {32, 32}, {31, 65}};
  for (const auto& s : shapes) {
    const auto v = normal_values(size_t(s.rows * s.cols), 0.5f);
    const int64_t out_rows = std::min<int64_t>(s.rows, 32), out_cols = std::min<int64_t>(s.cols, 32);
    const auto got = adaptive_block_means_f32(v.data(), s.rows, s.cols, 32, 32);
    const auto want = reference(v, s.rows, s.cols, out_rows, out_cols);
    INFO(s.rows << "x" << s.cols);
    REQUIRE(got.size() == want.size());
    for (size_t k = 0; k < got.size(); ++k) CHECK(got[k] == Approx(want[k]).epsilon(1e-6).margin(1e-7));
  }
  // a grid no larger than the array keeps every value as its own block, exactly
  const auto v = normal_values(15, 0.f);
  CHECK(adaptive_block_means_f32(v.data(), 5, 3, 32, 32) == v);
}

TEST_CASE("a non-finite value makes only its own blocks non-finite", "[thumbnail]") {
  std::vector<float> v(64 * 64, 1.f);
  v[0] = std::numeric_limits<float>::quiet_NaN();               // block (0, 0)
  v[10 * 64 + 40] = std::numeric_limits<float>::infinity();      // block (5, 20)
  v[63 * 64 + 63] = -std::numeric_limits<float>::infinity();     // block (31, 31) ...
  v[62 * 64 + 62] = std::numeric_limits<float>::infinity();      // ... with +inf too: NaN
  const auto m = adaptive_block_means_f32(v.data(), 64, 64, 32, 32);
  REQUIRE(m.size() == 32 * 32);
  CHECK(std::isnan(m[0]));
  CHECK(std::isinf(m[5 * 32 + 20]));
  CHECK(m[5 * 32 + 20] > 0);
  CHECK(std::isnan(m[31 * 32 + 31]));
  int finite_ones = 0;
  for (float x : m) finite_ones += x == 1.f;
  CHECK(finite_ones == 32 * 32 - 3);
}

TEST_CASE("an empty array or grid gives no thumbnail", "[thumbnail]") {
  const float x = 1.f;
  CHECK(adaptive_block_means_f32(&x, 0, 5, 32, 32).empty());
  CHECK(adaptive_block_means_f32(&x, 1, 1, 0, 32).empty());
  CHECK(adaptive_block_means_f32(&x, 1, 1, 32, 32) == std::vector<float>{1.f});
}
