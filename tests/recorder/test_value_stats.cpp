// value_stats: exact statistics against a naive double computation, NaN/Inf
// handling, histogram mass, and piecewise (parallel) merging.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tvis/recorder/value_stats.h"

using namespace tvis::recorder;

namespace {
std::vector<float> random_values(size_t n, uint32_t seed, float scale = 3.f, float shift = 1.f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(shift, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}
}  // namespace

TEST_CASE("statistics equal a naive double computation", "[stats]") {
  for (size_t n : {1u, 7u, 8u, 9u, 1000u, 100003u}) {
    auto v = random_values(n, 42 + n);
    double lo = 1e300, hi = -1e300, sum = 0, sum_abs = 0, sq = 0;
    for (float f : v) {
      lo = std::min(lo, double(f));
      hi = std::max(hi, double(f));
      sum += f;
      sum_abs += std::fabs(double(f));
      sq += double(f) * f;
    }
    const double mean = sum / n;
    double var = 0;
    for (float f : v) var += (f - mean) * (f - mean);
    ValueStats s = stats_of_f32(v.data(), n);
    CHECK(s.count == n);
    CHECK(s.finite_count == n);
    CHECK(s.min == lo);
    CHECK(s.max == hi);
    CHECK(s.mean == Approx(mean).epsilon(1e-12));
    CHECK(s.mean_abs == Approx(sum_abs / n).epsilon(1e-12));
    CHECK(s.l2 == Approx(std::sqrt(sq)).epsilon(1e-12));
    CHECK(s.std == Approx(std::sqrt(var / n)).epsilon(1e-8).margin(1e-12));
    uint64_t mass = 0;
    for (auto c : s.histogram) mass += c;
    CHECK(mass == n);
    REQUIRE(s.histogram.size() == size_t(kHistogramBins));
    if (n > 1) CHECK(s.histogram.back() >= 1);  // the maximum lands in the last, closed bin
  }
}

TEST_CASE("NaN and Inf are counted and left out of every other statistic", "[stats]") {
  std::vector<float> v = {1, 2, std::numeric_limits<float>::quiet_NaN(), 3, std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), 4};
  for (int first_nan = 0; first_nan < 2; ++first_nan) {
    if (first_nan) std::swap(v[0], v[2]);  // NaN at index 0 must not poison min/max
    ValueStats s = stats_of_f32(v.data(), v.size());
    CHECK(s.nan_count == 1);
    CHECK(s.inf_count == 2);
    CHECK(s.finite_count == 4);
    CHECK(s.min == 1);
    CHECK(s.max == 4);
    CHECK(s.mean == 2.5);
    uint64_t mass = 0;
    for (auto c : s.histogram) mass += c;
    CHECK(mass == 4);
  }
}

TEST_CASE("all non-finite and constant arrays", "[stats]") {
  std::vector<float> nan(5, std::numeric_limits<float>::quiet_NaN());
  ValueStats a = stats_of_f32(nan.data(), nan.size());
  CHECK(a.finite_count == 0);
  CHECK(a.histogram.empty());
  std::vector<float> c(10, 2.5f);
  ValueStats b = stats_of_f32(c.data(), c.size());
  CHECK(b.min == 2.5);
  CHECK(b.std == 0);
  CHECK(b.histogram[0] == 10);
}

TEST_CASE("pieces merged give the whole array's statistics", "[stats]") {
  auto v = random_values(1 << 20, 7);
  const size_t piece = 1 << 17;
  Sums all;
  for (size_t i = 0; i < v.size(); i += piece) all = merge_sums(all, sums_of_f32(v.data() + i, piece));
  REQUIRE(all.finite);
  std::vector<uint32_t> hist(kHistogramBins, 0);
  for (size_t i = 0; i < v.size(); i += piece) add_histogram_f32(v.data() + i, piece, all.lo, all.hi, hist.data());
  ValueStats merged = stats_from(all, hist);
  ValueStats whole = stats_of_f32(v.data(), v.size());
  CHECK(merged.min == whole.min);
  CHECK(merged.max == whole.max);
  CHECK(merged.mean == Approx(whole.mean).epsilon(1e-12));
  CHECK(merged.std == Approx(whole.std).epsilon(1e-12));
  CHECK(merged.histogram == whole.histogram);
}

namespace {
// Values of `v` histogram_bin() puts in each bin, and how many of them lie
// within `edge` of a bin width from an inner bin edge (where a float32
// computation may pick the neighbouring bin).
std::vector<uint32_t> reference_bins(const std::vector<float>& v, double lo, double hi, double edge, size_t* near) {
  std::vector<uint32_t> bins(kHistogramBins, 0);
  *near = 0;
  for (float f : v) {
    ++bins[histogram_bin(f, lo, hi, kHistogramBins)];
    const double t = (double(f) - lo) / (hi - lo) * kHistogramBins;
    const double d = std::fabs(t - std::round(t));
    *near += d < edge && t > 0.5 && t < kHistogramBins - 0.5;
  }
  return bins;
}
}  // namespace

TEST_CASE("histograms bin like histogram_bin() but for values near a bin edge, at every range", "[stats]") {
  const float fmax = std::numeric_limits<float>::max();
  struct Case {
    const char* what;
    std::vector<float> values;
  };
  std::vector<Case> cases;
  cases.push_back({"normal", random_values(100003, 3, 0.02f, 0.f)});
  auto wide = random_values(4099, 5, 1.f, 0.f);
  for (auto& x : wide) x *= fmax / 8;
  wide[0] = -fmax, wide[1] = fmax;  // a range wider than FLT_MAX: x - lo overflows float
  cases.push_back({"the whole float range", wide});
  std::vector<float> narrow;
  for (int k = 0; k < 300; ++k) narrow.push_back(std::nextafter(1.0f, 2.0f * (k % 3)));  // 1 - ulp, 1, 1 + ulp
  cases.push_back({"three neighbouring floats", narrow});
  std::vector<float> tiny;
  for (int k = 0; k < 200; ++k) tiny.push_back(std::numeric_limits<float>::denorm_min() * float(k % 5));
  cases.push_back({"subnormals: 64 / width overflows float", tiny});
  for (const Case& c : cases) {
    INFO(c.what);
    ValueStats s = stats_of_f32(c.values.data(), c.values.size());
    size_t near = 0;
    auto expect = reference_bins(c.values, s.min, s.max, 1.2e-5, &near);
    REQUIRE(s.histogram.size() == expect.size());
    uint64_t moved = 0, mass = 0;
    for (int b = 0; b < kHistogramBins; ++b) {
      moved += s.histogram[b] > expect[b] ? s.histogram[b] - expect[b] : 0;
      mass += s.histogram[b];
    }
    CHECK(mass == c.values.size());
    CHECK(moved <= near);
  }
}
