// bench_insights: the Insights pages over a real run, natively and headless
// (a Dear ImGui context without a window or GPU: the App's CPU cost).
//
//   bench_insights RUN [--frames N]
//
// For each insight page the run has (state().insights), from a freshly
// opened run: the time from open() until the page's view is shown (the
// run's open, its insight records and the tensors the page decodes
// included), then frame times (median, p99) over N frames changing what the
// page shows each frame: Attention the head (mean, 0, 1, ...) and the layer,
// Grad-CAM the conv layer, Embeddings the depth (first pass computes each
// module's PCA, later passes hit the cache). Then pca2() alone on random
// matrices of sizes an Embeddings page meets (why PCA is computed in the
// viewer: tools/bench/results/insights.md). Goal (issue 14): open < 100 ms, p99 < 16 ms.
// Exit 0 when met, 3 otherwise, 2 on a run it cannot read.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "tvis/format/byte_source.h"
#include "tvis/viewer/app.h"
#include "tvis/viewer_model/pca.h"
#include "headless_app.h"
#include "tvis/widgets/texture_uploader.h"

using namespace tvis::bench;

namespace {

// The command that changes what page `name` shows, for frame k.
json change(const std::string& name, const json& v, int k) {
  if (name == "Attention") {
    const int heads = v.value("heads", 1);
    const auto& layers = v["layers"];
    if (k % 2) return {{"head", (k / 2) % (heads + 1) - 1}};
    return {{"module", layers[(k / 2) % layers.size()]}};
  }
  if (name == "Grad-CAM") return {{"module", v["layers"][k % v["layers"].size()]}};
  return {{"depth", k % v["modules"].size()}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_insights RUN [--frames N]\n");
    return 2;
  }
  int frames = 300;
  for (int i = 2; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--frames")) frames = std::max(10, std::atoi(argv[i + 1]));
  std::vector<std::string> pages;
  {
    Headless h;
    if (!h.open(argv[1], "bench_insights")) return 2;
    for (int i = 0; i < 200; ++i) h.frame();
    const json state = json::parse(h.app->state_json());
    for (const auto& p : state["insights"]) pages.push_back(p);
  }
  bool ok = true;
  std::printf("run: %s\ninsight pages: %zu\n", argv[1], pages.size());
  for (const std::string& name : pages) {
    Headless h;
    const auto t0 = Clock::now();
    if (!h.open(argv[1], "bench_insights")) return 2;
    h.command({{"link", {{"page", name}}}});
    int n = 0;
    json v;
    for (; n < 2000; ++n) {
      h.frame();
      v = h.view();
      if (!v.is_null() && (name != "Attention" || !v["rollout"].is_null())) break;
    }
    const double open_ms = ms_since(t0);
    std::vector<double> times;
    for (int k = 0; k < frames; ++k) {
      h.command(change(name, v, k));
      times.push_back(h.frame());
    }
    const double p99 = percentile(times, 0.99);
    std::printf("%-10s open %7.2f ms (%d frames)  changing: median %.3f ms  p99 %.3f ms  max %.3f ms\n", name.c_str(),
                open_ms, n + 1, percentile(times, 0.5), p99, percentile(times, 1.0));
    ok = ok && open_ms < 100 && p99 < 16;
  }
  std::mt19937 rng(1);
  std::normal_distribution<double> normal;
  // Rows: recorded steps x followed samples (ResNet-18's 3 steps x 4 = 12;
  // 100 and 1000 steps); dims: a module's channels.
  for (auto [rows, dims] : {std::pair{12, 512}, {64, 512}, {256, 512}, {400, 512}, {4000, 64}, {4000, 512},
                            {1024, 768}}) {
    std::vector<double> x(static_cast<size_t>(rows) * dims);
    for (double& e : x) e = normal(rng);
    const auto t0 = Clock::now();
    const tvis::viewer::Pca2 p = tvis::viewer::pca2(x, rows, dims);
    std::printf("pca2 %5d x %-4d %8.2f ms%s\n", rows, dims, ms_since(t0), p.problem.empty() ? "" : " (failed)");
  }
  std::printf("goal (open < 100 ms, p99 < 16 ms): %s\n", ok ? "met" : "NOT met");
  return ok ? 0 : 3;
}
