// bench_viewer_widgets: frame times of the heaviest widget uses, measured on
// a headless Dear ImGui context (CPU side only: building draw lists, no GPU).
// Prints one line per case: median and max milliseconds over the frames, and
// the vertices the widget added to the draw list.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "imgui.h"
#include "tvis/widgets/heatmap.h"
#include "tvis/widgets/line_plot.h"

namespace {

using Clock = std::chrono::steady_clock;

struct CountingUploader : tvis::widgets::TextureUploader {
    int uploads = 0;
    std::vector<std::uint8_t> sink;  // copies the pixels, as a real upload would
    ImTextureID create(int w, int h, const std::uint8_t* rgba) override {
        ++uploads;
        sink.assign(rgba, rgba + static_cast<std::size_t>(w) * h * 4);
        return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(7));
    }
    void update(ImTextureID, int w, int h, const std::uint8_t* rgba) override { create(w, h, rgba); }
    void destroy(ImTextureID) override {}
};

// Runs `frames` headless frames of body(); reports the median/max frame time.
void run_case(const char* name, int frames, const std::function<void()>& body) {
    std::vector<double> ms;
    int vertices = 0;
    for (int f = 0; f < frames; ++f) {
        const auto t0 = Clock::now();
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
        ImGui::Begin("bench", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
        const int before = ImGui::GetWindowDrawList()->VtxBuffer.Size;
        body();
        vertices = ImGui::GetWindowDrawList()->VtxBuffer.Size - before;
        ImGui::End();
        ImGui::Render();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    const double first = ms.front();
    std::sort(ms.begin(), ms.end());
    std::printf("%-44s first %7.2f ms  median %7.2f ms  max %7.2f ms  %8d vertices\n", name, first,
                ms[ms.size() / 2], ms.back(), vertices);
}

}  // namespace

int main() {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1920, 1080);
    io.DeltaTime = 1.0f / 60.0f;
    io.IniFilename = nullptr;
    unsigned char* px = nullptr;
    int fw = 0, fh = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &fw, &fh);

    std::vector<float> y(1000000);
    for (std::size_t i = 0; i < y.size(); ++i) {
        const float t = static_cast<float>(i);
        y[i] = std::sin(t * 1e-4f) * std::exp(-t * 2e-6f) + 0.05f * std::sin(t * 0.37f);
    }
    tvis::widgets::PlotSeries s;
    s.label = "loss";
    s.y = tvis::widgets::ValueSpan(y);
    tvis::widgets::LinePlotOptions po;
    po.size = ImVec2(1600, 400);
    std::size_t plot_vertices = 0;
    int plot_width = 0;
    run_case("line_plot 1e6 points, 1600 px", 60, [&] {
        const auto r = tvis::widgets::line_plot("##p", &s, 1, po);
        plot_vertices = r.vertices;
        plot_width = r.plot_width_px;
    });
    std::printf("  polyline vertices %zu for %d pixel columns\n", plot_vertices, plot_width);
    io.MousePos = ImVec2(800, 200);
    run_case("line_plot 1e6 points, 1600 px, hovered", 60, [&] { tvis::widgets::line_plot("##p", &s, 1, po); });
    io.MousePos = ImVec2(-1, -1);

    const int n = 512;
    std::vector<float> h(static_cast<std::size_t>(n) * n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) h[static_cast<std::size_t>(r) * n + c] = std::sin(r * 0.05f) * std::cos(c * 0.03f);
    tvis::widgets::HeatmapOptions ho;
    ho.size = ImVec2(1000, 1000);  // about 2 px per cell
    run_case("heatmap 512x512 rects (fallback), 2 px cells", 30,
             [&] { tvis::widgets::heatmap("##h1", tvis::widgets::ValueSpan(h), n, n, ho); });
    ho.size = ImVec2(300, 300);  // cells below a pixel: block-merged
    run_case("heatmap 512x512 rects (fallback), 0.6 px", 30,
             [&] { tvis::widgets::heatmap("##h2", tvis::widgets::ValueSpan(h), n, n, ho); });

    CountingUploader up;
    tvis::widgets::HeatmapTexture tex;
    ho.size = ImVec2(1000, 1000);
    ho.uploader = &up;
    ho.texture = &tex;
    run_case("heatmap 512x512 texture (fake uploader)", 30,
             [&] { tvis::widgets::heatmap("##h3", tvis::widgets::ValueSpan(h), n, n, ho); });
    std::printf("  uploads: %d (first frame builds and uploads the RGBA image)\n", up.uploads);
    std::uint64_t version = 0;
    run_case("heatmap 512x512 texture, new data every frame", 30, [&] {
        ho.data_version = ++version;
        tvis::widgets::heatmap("##h3", tvis::widgets::ValueSpan(h), n, n, ho);
    });
    tex.release();
    ImGui::DestroyContext();
    return 0;
}
