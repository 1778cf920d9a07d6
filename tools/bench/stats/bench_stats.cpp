// bench_stats: nanoseconds per value of the recorder's statistics loops
// (value_stats.h: the sums pass, the histogram pass, both as stats_of_f32)
// and, as the baseline measured in the same process, a memcpy of the same
// bytes, at array sizes that stay in L2, in L3 and in memory. Then the copy
// into fresh pages (memory just mapped, each 4 KiB page faulted in and zeroed
// by the kernel on first write) against the same copy into warm pages: what
// a kept copy costs when the writer's buffers cannot be reused (the encoder
// behind the training, tools/bench/results/recorder_cost.md).
//
//   bench_stats [--reps N]
//
// Prints one line per size: ns/value of each pass and its ratio to the copy;
// then the fresh-page line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tvis/recorder/value_stats.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

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

/// The fresh-page line: best-of-`reps` copies of 64 MB into a new anonymous
/// mapping each time, against the best copy into one kept warm.
void print_fresh_page_copy(int reps) {
#if defined(__linux__)
  const size_t bytes = size_t(64) << 20;
  std::vector<uint8_t> source(bytes, 1), warm(bytes, 0);
  const double warm_s = best_seconds(reps, [&] { std::memcpy(warm.data(), source.data(), bytes); });
  double fresh_s = 1e30;
  for (int r = 0; r < reps; ++r) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return (void)std::printf("fresh pages: mmap failed\n");
    fresh_s = std::min(fresh_s, best_seconds(1, [&] { std::memcpy(p, source.data(), bytes); }));
    munmap(p, bytes);
  }
  const double pages = double(bytes) / 4096;
  std::printf("64 MB copy into fresh pages: %.2f GB/s (%.2f us a 4 KiB page), into warm pages %.2f GB/s: %.1fx\n",
              bytes / fresh_s / 1e9, fresh_s / pages * 1e6, bytes / warm_s / 1e9, fresh_s / warm_s);
#else
  (void)reps;
#endif
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
  print_fresh_page_copy(std::min(reps, 5));
  return 0;
}
