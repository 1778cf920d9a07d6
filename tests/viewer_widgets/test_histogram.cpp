#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "headless_imgui.h"
#include "tvis/widgets/histogram.h"

using namespace tvis::widgets;
using tvis::widgets::test::HeadlessImGui;

TEST_CASE("histogram_counts: equal bins, hi in the last bin, non-finite ignored", "[histogram]") {
    const std::vector<float> v = {0.0f, 0.1f, 0.5f, 0.99f, 1.0f, -0.1f, 1.5f, NAN, INFINITY, 0.25f};
    std::vector<double> c;
    histogram_counts(ValueSpan(v), 4, 0.0, 1.0, &c);
    REQUIRE(c.size() == 4);
    CHECK(c[0] == 2);  // 0, 0.1
    CHECK(c[1] == 1);  // 0.25
    CHECK(c[2] == 1);  // 0.5
    CHECK(c[3] == 2);  // 0.99, 1.0
    histogram_counts(ValueSpan(v), 4, 1.0, 1.0, &c);
    CHECK(c.empty());
}

TEST_CASE("histogram: hover reports the bin range and count", "[histogram]") {
    HeadlessImGui ui;
    std::vector<double> counts = {1, 5, 20, 50, 20, 5, 1, 0, 3, 0};
    const HistogramMark marks[] = {{0.0, "0", 0}, {0.25, "mean", 0}, {99.0, "outside", 0}};
    HistogramOptions o;
    o.size = ImVec2(500, 160);
    o.marks = marks;
    o.mark_count = 3;
    HistogramResult r;
    ui.frame([&] { r = histogram("##h", ValueSpan(counts), -1.0, 1.5, o); });
    CHECK_FALSE(r.hovered);
    const float bin_w = (r.plot_max.x - r.plot_min.x) / 10.0f;
    ui.io().MousePos = ImVec2(r.plot_min.x + bin_w * 3.5f, r.plot_max.y - 5.0f);
    ui.frame([&] { r = histogram("##h", ValueSpan(counts), -1.0, 1.5, o); });
    REQUIRE(r.hovered);
    CHECK(r.bin == 3);
    CHECK(r.bin_lo == Approx(-0.25));
    CHECK(r.bin_hi == Approx(0.0));
    CHECK(r.count == 50);
    ui.io().MousePos = ImVec2(r.plot_max.x - 1.0f, r.plot_max.y - 5.0f);
    ui.frame([&] { r = histogram("##h", ValueSpan(counts), -1.0, 1.5, o); });
    CHECK(r.bin == 9);
    CHECK(r.bin_hi == 1.5);
}

TEST_CASE("histogram: more bins than pixels, log counts, bad bounds", "[histogram]") {
    HeadlessImGui ui;
    std::vector<float> counts(100000, 1.0f);
    counts[77777] = 1e6f;
    HistogramOptions o;
    o.size = ImVec2(300, 120);
    o.log_counts = true;
    HistogramResult r;
    int vertices = 0;
    ui.frame([&] {
        const int before = ImGui::GetWindowDrawList()->VtxBuffer.Size;
        r = histogram("##many", ValueSpan(counts), 0.0, 1.0, o);
        vertices = ImGui::GetWindowDrawList()->VtxBuffer.Size - before;
    });
    CHECK(vertices < 300 * 4 * 2 + 2000);  // one bar per pixel column, not per bin
    ui.frame([&] { r = histogram("##bad", ValueSpan(counts), 1.0, 0.0, o); });
    CHECK_FALSE(r.hovered);
    ui.frame([&] { r = histogram("##nan", ValueSpan(counts), NAN, 1.0, o); });
    CHECK_FALSE(r.hovered);
}

TEST_CASE("histogram: x tick labels at the ends of the range stay inside the widget", "[histogram]") {
    HeadlessImGui ui;
    // An update's histogram, 400 px: -0.001 .. 0.001, ticks -0.001, 0, 0.001 on the frame's edges.
    std::vector<double> counts(64, 3.0);
    HistogramOptions o;
    o.size = ImVec2(400, 80);
    float left = 0.0f, right = 0.0f, min_x = 1e9f, max_x = -1e9f;
    ui.frame([&] {
        ImGui::SetCursorScreenPos(ImVec2(200, 100));
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const int before = dl->VtxBuffer.Size;
        left = ImGui::GetCursorScreenPos().x;
        histogram("##edges", ValueSpan(counts), -0.0010013, 0.0010013, o);
        right = left + 400.0f;
        for (int i = before; i < dl->VtxBuffer.Size; ++i) {
            min_x = std::min(min_x, dl->VtxBuffer[i].pos.x);
            max_x = std::max(max_x, dl->VtxBuffer[i].pos.x);
        }
    });
    CHECK(min_x >= left - 1.0f);
    CHECK(max_x <= right + 1.0f);
}
