// headless_app.h: the viewer App on a headless ImGui context, for the page
// benchmarks (bench_pages, bench_insights): a 1400x900 display at 60 frames
// a second, a stand-in texture uploader so heatmaps take the texture path
// they take in a window, frames timed on the CPU (no GL), state() and
// commands as JSON. Header-only: each benchmark is one translation unit.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tvis/format/byte_source.h"
#include "tvis/viewer/app.h"
#include "tvis/widgets/texture_uploader.h"

namespace tvis::bench {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

inline double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

inline double percentile(std::vector<double> v, double p) {
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
inline FakeUploader g_uploader;

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
  bool open(const std::string& path, const char* program) {
    auto s = tvis::format::open_file_source(path);
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", program, s.status().message.c_str());
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

}  // namespace tvis::bench
