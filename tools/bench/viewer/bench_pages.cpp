// bench_pages: what the Loss and Weights pages read and cost per frame over a
// real run (issue 13's figures are for the ResNet-18 run of
// tests/recorder/scripts/resnet18.py), natively and headless (a Dear ImGui
// context without a window or GPU: the App's CPU cost per frame).
//
//   bench_pages RUN [--param NAME] [--frames N]
//
// Each figure starts from a freshly opened run (its own App), so the bytes
// are what that view alone reads (the open's header, footer and metadata
// included):
//   1. Loss: bytes read until the page shows its call, every sample of the
//      shown step and the confusion matrix over every recorded batch.
//   2. Weights, one parameter (default: the largest conv weight): bytes read
//      until its values are drawn.
//   3. Weights, "All layers": bytes read until every thumbnail of the first
//      screen is drawn.
//   4. Frame times (median, p99) while sliding across the steps on the one
//      parameter (a step a frame, N frames), and while scrolling the
//      thumbnails (N frames, end to end and back).
// Goal (issue 13): p99 < 16 ms for both. Exit 0 when met, 3 otherwise, 2 on
// a run it cannot read.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tvis/format/byte_source.h"
#include "tvis/viewer/app.h"
#include "headless_app.h"
#include "tvis/widgets/texture_uploader.h"

using namespace tvis::bench;

namespace {

std::string mb(uint64_t bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::string run, param;
  int n = 300;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--param") && i + 1 < argc) param = argv[++i];
    else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) n = std::max(10, std::atoi(argv[++i]));
    else run = argv[i];
  }
  if (run.empty()) {
    std::fprintf(stderr, "usage: bench_pages RUN [--param NAME] [--frames N]\n");
    return 2;
  }
  bool ok = true;
  uint64_t file = 0;
  // 1. Loss.
  {
    Headless h;
    if (!h.open(run, "bench_pages")) return 2;
    file = h.source->size();
    h.command({{"link", {{"page", "Loss"}}}});
    const auto t0 = Clock::now();
    const int frames = frames_until(h, [](const json& v) {
      return v.is_object() && v.value("analysis", "") != "loading" && v.value("confusion_state", "") != "loading" &&
             !v["call"].is_null();
    });
    const json v = h.view();
    std::printf("run: %s (%s)\n", run.c_str(), mb(file).c_str());
    std::printf("Loss: %s read (%.3f%% of the file) in %d frames, %.0f ms; %zu losses, %zu worst listed, confusion %s\n",
                mb(h.source->bytes_read()).c_str(), 100.0 * static_cast<double>(h.source->bytes_read()) / static_cast<double>(file),
                frames, ms_since(t0), v["losses"].size(), v["worst"].size(), v["confusion"].is_null() ? "none" : "shown");
    if (frames < 0) ok = false;
  }
  // 2. One parameter.
  std::string shown;
  {
    Headless h;
    h.open(run, "bench_pages");
    h.command({{"link", {{"page", "Weights"}}}});
    if (frames_until(h, [](const json& v) { return v.is_object() && !v["params"].empty(); }) < 0) {
      std::printf("Weights: no parameters recorded\n");
      return 3;
    }
    if (param.empty()) {  // the largest 4-D weight among the first few shapes known
      const json names = h.view()["params"];
      int64_t best = -1;
      for (const auto& nm : names) {
        h.command({{"param", nm}});
        h.frame();
        h.frame();
        const json v = h.view();
        if (!v["shape"].is_array() || v["shape"].size() != 4) continue;
        int64_t count = 1;
        for (const auto& d : v["shape"]) count *= d.get<int64_t>();
        if (count > best) {
          best = count;
          param = nm.get<std::string>();
        }
      }
    }
    h.app.reset();
    Headless g;
    g.open(run, "bench_pages");
    g.command({{"link", {{"page", "Weights"}, {"param", param}, {"show", "weight"}}}});
    const auto t0 = Clock::now();
    // values drawn: the page decoded them from their TensorData chunk
    const int frames = frames_until(g, [](const json& v) { return v.is_object() && v.value("values", "") == "drawn"; });
    std::printf("Weights, one parameter (%s): %s read in %d frames, %.0f ms\n", param.c_str(),
                mb(g.source->bytes_read()).c_str(), frames, ms_since(t0));
    if (frames < 0) ok = false;
    shown = param;
    // 4a. Sliding across steps on it.
    const int steps = json::parse(g.app->state_json())["run"]["steps"].get<int>();
    std::vector<double> times;
    for (int i = 0; i < n; ++i) {
      g.command({{"step", i % std::max(1, steps)}});
      times.push_back(g.frame());
    }
    const double p99 = percentile(times, 0.99);
    std::printf("  sliding steps (%d steps, %d frames): median %.2f ms, p99 %.2f ms, max %.2f ms\n", steps, n,
                percentile(times, 0.5), p99, *std::max_element(times.begin(), times.end()));
    if (p99 >= 16) ok = false;
  }
  // 3. All layers, one screen; 4b. scrolling.
  {
    Headless h;
    h.open(run, "bench_pages");
    h.command({{"link", {{"page", "Weights"}, {"weights_tab", "All layers"}}}});
    const auto t0 = Clock::now();
    const int frames = frames_until(h, [](const json& v) {
      return v.is_object() && v["thumbnails"]["visible"].get<int>() > 0 &&
             v["thumbnails"]["drawn"] == v["thumbnails"]["visible"];
    });
    const json v = h.view();
    std::printf("Weights, All layers: first screen (%d of %zu thumbnails) %s read in %d frames, %.0f ms\n",
                v["thumbnails"]["visible"].get<int>(), v["params"].size(), mb(h.source->bytes_read()).c_str(), frames,
                ms_since(t0));
    if (frames < 0) ok = false;
    std::vector<double> times;
    for (int i = 0; i < n; ++i) {
      const int half = n / 2;
      const float y = static_cast<float>(i < half ? i : n - i) * 40.0f;  // down, then back up
      h.command({{"thumbs_scroll", y}});
      times.push_back(h.frame());
    }
    const double p99 = percentile(times, 0.99);
    std::printf("  scrolling thumbnails (%d frames, 40 px a frame): median %.2f ms, p99 %.2f ms, max %.2f ms; %s read in all\n",
                n, percentile(times, 0.5), p99, *std::max_element(times.begin(), times.end()),
                mb(h.source->bytes_read()).c_str());
    if (p99 >= 16) ok = false;
  }
  std::printf("%s\n", ok ? "goals met (p99 < 16 ms)" : "GOALS NOT MET");
  return ok ? 0 : 3;
}
