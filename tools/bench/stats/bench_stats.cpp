// bench_stats: nanoseconds per value of the recorder's statistics loops
// (value_stats.h: the sums pass, the histogram pass, both as stats_of_f32)
// and, as the baseline measured in the same process, a memcpy of the same
// bytes, at array sizes that stay in L2, in L3 and in memory.
//
//   bench_stats [--reps N]
//
// Prints one line per size: ns/value of each pass and its ratio to the copy.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tvis/recorder/value_stats.h"

namespace {

using Clock = std::chrono::steady_clock;

/// Best-of-`reps` seconds of `fn()`.
template <typename Fn>
double best_seconds(int reps, Fn fn) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tvis::recorder;
  int reps = 15;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--reps") reps = std::max(1, std::atoi(argv[i + 1]));
  std::printf("%-28s %10s %10s %10s %10s   (ns/value; x = against the copy)\n", "values (like)", "copy", "sums",
              "histogram", "stats_of");
  const struct {
    size_t n;
    const char* like;
  } sizes[] = {{1u << 16, "256 KB, in L2"},
               {2359296, "9 MB: 512x512x3x3, L3"},
               {size_t(1) << 24, "64 MB, memory"}};
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.f, 0.02f);
  volatile double sink = 0;
  for (const auto& size : sizes) {
    const size_t n = size.n;
    std::vector<float> values(n), copy(n);
    for (auto& x : values) x = normal(rng);
    const double copy_s = best_seconds(reps, [&] { std::memcpy(copy.data(), values.data(), n * sizeof(float)); });
    Sums sums;
    const double sums_s = best_seconds(reps, [&] { sums = sums_of_f32(values.data(), n); });
    std::vector<uint32_t> bins(kHistogramBins);
    const double hist_s = best_seconds(reps, [&] {
      std::fill(bins.begin(), bins.end(), 0);
      add_histogram_f32(values.data(), n, sums.lo, sums.hi, bins.data());
    });
    const double stats_s = best_seconds(reps, [&] { sink = sink + stats_of_f32(values.data(), n).mean; });
    const double ns = 1e9 / double(n);
    std::printf("%9zu %-18s %10.3f %6.3f %4.1fx %6.3f %4.1fx %6.3f %4.1fx\n", n, size.like, copy_s * ns, sums_s * ns,
                sums_s / copy_s, hist_s * ns, hist_s / copy_s, stats_s * ns, stats_s / copy_s);
  }
  return 0;
}
