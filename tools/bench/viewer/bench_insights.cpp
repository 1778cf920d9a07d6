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
// viewer: tools/bench/README.md). Goal (issue 14): open < 100 ms, p99 < 16 ms.
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
#include "tvis/widgets/texture_uploader.h"

using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[k];
}

// Stands in for the shells' GL uploader, so heatmaps take the texture path
// they take in a window (an image built on change, one quad drawn).
struct FakeUploader : tvis::widgets::TextureUploader {
  intptr_t next = 0;
  ImTextureID create(int, int, const std::uint8_t*) override { return reinterpret_cast<ImTextureID>(++next); }
  void update(ImTextureID, int, int, const std::uint8_t*) override {}
  void destroy(ImTextureID) override {}
};
FakeUploader g_uploader;

struct Headless {
  ImGuiContext* ctx = nullptr;
  std::unique_ptr<tvis::viewer::App> app;
  std::shared_ptr<tvis::format::ByteSource> source;
  Headless() {
    ctx = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1400, 900);
    io.DeltaTime = 1.0f / 60.0f;
    io.IniFilename = nullptr;
    for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = 100 + k;
    io.MousePos = ImVec2(-1, -1);
    tvis::viewer::AppOptions options;
    options.texture_uploader = &g_uploader;
    app = std::make_unique<tvis::viewer::App>(options);
    app->configure_scale(1.0f, 1.0f);
  }
  ~Headless() {
    app.reset();
    ImGui::DestroyContext(ctx);
  }
  bool open(const std::string& path) {
    auto s = tvis::format::open_file_source(path);
    if (!s.ok()) {
      std::fprintf(stderr, "bench_insights: %s\n", s.status().message.c_str());
      return false;
    }
    source = s.value();
    app->open(source);
    return true;
  }
  double frame() {
    const auto t0 = Clock::now();
    ImGui::NewFrame();
    app->frame();
    ImGui::Render();
    const double ms = ms_since(t0);
    app->record_frame_ms(ms);
    return ms;
  }
  json view() { return json::parse(app->state_json())["view"]; }
  json command(const json& c) { return json::parse(app->command(c.dump())); }
};

// Frames until `done(view)` holds (at most 2000); returns the frames taken, or -1.
template <typename F>
int frames_until(Headless& h, F&& done) {
  for (int i = 1; i <= 2000; ++i) {
    h.frame();
    if (done(h.view())) return i;
  }
  return -1;
}

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
    if (!h.open(argv[1])) return 2;
    for (int i = 0; i < 200; ++i) h.frame();
    const json state = json::parse(h.app->state_json());
    for (const auto& p : state["insights"]) pages.push_back(p);
  }
  bool ok = true;
  std::printf("run: %s\ninsight pages: %zu\n", argv[1], pages.size());
  for (const std::string& name : pages) {
    Headless h;
    const auto t0 = Clock::now();
    if (!h.open(argv[1])) return 2;
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
  for (auto [rows, dims] : {std::pair{64, 512}, {256, 512}, {1024, 768}, {4096, 64}}) {
    std::vector<double> x(static_cast<size_t>(rows) * dims);
    for (double& e : x) e = normal(rng);
    const auto t0 = Clock::now();
    const tvis::viewer::Pca2 p = tvis::viewer::pca2(x, rows, dims);
    std::printf("pca2 %5d x %-4d %8.2f ms%s\n", rows, dims, ms_since(t0), p.problem.empty() ? "" : " (failed)");
  }
  std::printf("goal (open < 100 ms, p99 < 16 ms): %s\n", ok ? "met" : "NOT met");
  return ok ? 0 : 3;
}
