#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "headless_imgui.h"
#include "tvis/widgets/line_plot.h"

using namespace tvis::widgets;
using tvis::widgets::test::HeadlessImGui;

namespace {
float to_screen_x(const LinePlotResult& r, double x) {
    return r.plot_min.x + static_cast<float>((x - r.view.x_lo) / (r.view.x_hi - r.view.x_lo)) * (r.plot_max.x - r.plot_min.x);
}
// y in the scale drawn (the view is in log10 when r.log_y).
float to_screen_y(const LinePlotResult& r, double y) {
    if (r.log_y) y = std::log10(y);
    return r.plot_max.y - static_cast<float>((y - r.view.y_lo) / (r.view.y_hi - r.view.y_lo)) * (r.plot_max.y - r.plot_min.y);
}
}  // namespace

TEST_CASE("line_plot: 1e6 points submit about 2 vertices per pixel column", "[line_plot]") {
    HeadlessImGui ui;
    std::vector<float> y(1000000);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::sin(i * 1e-3f) + (i % 1013 == 0 ? 2.0f : 0.0f);
    PlotSeries s;
    s.label = "loss";
    s.y = ValueSpan(y);
    LinePlotOptions o;
    o.size = ImVec2(800, 300);
    LinePlotResult r;
    std::size_t list_vertices = 0;
    ImDrawList* dl = ui.frame([&] {
        const int before = ImGui::GetWindowDrawList()->VtxBuffer.Size;
        r = line_plot("##p", &s, 1, o);
        list_vertices = static_cast<std::size_t>(ImGui::GetWindowDrawList()->VtxBuffer.Size - before);
    });
    (void)dl;
    REQUIRE(r.plot_width_px > 700);
    CHECK(r.points_in_view == 1000000);
    CHECK(r.vertices <= static_cast<std::size_t>(2 * r.plot_width_px + 2));
    CHECK(r.vertices >= static_cast<std::size_t>(r.plot_width_px));  // every column drew something
    // Anti-aliased polyline triangulation costs a few draw vertices per point, plus axes and text.
    CHECK(list_vertices < 4 * r.vertices + 4000);
    WARN("1e6 points: " << r.vertices << " polyline vertices for " << r.plot_width_px << " px, "
                        << list_vertices << " draw-list vertices in all");
    // The auto-fitted y covers the spikes (max 2 + 1, min -1).
    CHECK(r.view.y_hi >= 2.9);
    CHECK(r.view.y_lo <= -0.99);
}

TEST_CASE("line_plot: hover reports the exact nearest point", "[line_plot]") {
    HeadlessImGui ui;
    std::vector<double> x, y;
    for (int i = 0; i < 100; ++i) {
        x.push_back(10.0 + i * 0.5);
        y.push_back(i * i * 0.25 + 0.125);
    }
    PlotSeries s[2];
    s[0].label = "a";
    s[0].x = ValueSpan(x);
    s[0].y = ValueSpan(y);
    std::vector<double> flat(100, 1000.0);
    s[1].label = "flat";
    s[1].x = ValueSpan(x);
    s[1].y = ValueSpan(flat);
    LinePlotOptions o;
    o.size = ImVec2(600, 300);
    LinePlotResult r;
    ui.frame([&] { r = line_plot("##p", s, 2, o); });
    CHECK_FALSE(r.hovered);
    // Aim at point 50 of series 0 (x = 35, y = 625.125).
    ui.io().MousePos = ImVec2(to_screen_x(r, 35.0) + 0.3f, to_screen_y(r, 625.125) - 2.0f);
    ui.frame([&] { r = line_plot("##p", s, 2, o); });
    REQUIRE(r.hovered);
    REQUIRE(r.has_point);
    CHECK(r.series == 0);
    CHECK(r.index == 50);
    CHECK(r.x == 35.0);
    CHECK(r.y == 625.125);
    // Near the flat series instead.
    ui.io().MousePos = ImVec2(to_screen_x(r, 20.0), to_screen_y(r, 1000.0) + 3.0f);
    ui.frame([&] { r = line_plot("##p", s, 2, o); });
    REQUIRE(r.has_point);
    CHECK(r.series == 1);
    CHECK(r.index == 20);
    CHECK(r.y == 1000.0);
    CHECK_FALSE(r.clicked);
    // A click (press and release in place) reports the point under the mouse.
    ui.io().MouseDown[0] = true;
    ui.frame([&] { r = line_plot("##p", s, 2, o); });
    CHECK_FALSE(r.clicked);
    ui.io().MouseDown[0] = false;
    ui.frame([&] { r = line_plot("##p", s, 2, o); });
    CHECK(r.clicked);
    CHECK(r.index == 20);
    // The current-step marker draws inside the plot without changing the view.
    o.marker_x = 30.0;
    const PlotView before = r.view;
    ui.frame([&] { r = line_plot("##p", s, 2, o); });
    CHECK(r.view.x_lo == before.x_lo);
    CHECK_FALSE(r.clicked);
}

TEST_CASE("line_plot: wheel zooms x around the mouse, double-click resets", "[line_plot]") {
    HeadlessImGui ui;
    std::vector<float> y(1000);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(i);
    PlotSeries s;
    s.y = ValueSpan(y);
    LinePlotOptions o;
    o.size = ImVec2(600, 300);
    LinePlotResult r;
    ui.frame([&] { r = line_plot("##z", &s, 1, o); });
    const double pad = 999.0 * 0.02;  // the fitted view's margin on each side
    CHECK(r.view.x_lo == Approx(-pad));
    CHECK(r.view.x_hi == Approx(999.0 + pad));
    const float mx = to_screen_x(r, 250.0);
    ui.io().MousePos = ImVec2(mx, (r.plot_min.y + r.plot_max.y) * 0.5f);
    ui.io().MouseWheel = 3.0f;
    ui.frame([&] { r = line_plot("##z", &s, 1, o); });
    const double width = r.view.x_hi - r.view.x_lo;
    CHECK(width == Approx((999.0 + 2 * pad) * std::pow(0.85, 3.0)));
    CHECK(r.view.x_lo > 0.0);
    CHECK(r.view.x_lo < 250.0);
    CHECK(r.view.x_hi > 250.0);
    CHECK(r.points_in_view < 1000);
    // y refits to what is visible.
    CHECK(r.view.y_lo > 0.0);
    // The zoom persists across frames.
    ui.frame([&] { r = line_plot("##z", &s, 1, o); });
    CHECK(r.view.x_hi - r.view.x_lo == Approx(width));
    // Drag pans.
    ui.io().MouseDown[0] = true;
    ui.frame([&] { r = line_plot("##z", &s, 1, o); });
    const double lo_before = r.view.x_lo;
    ui.io().MousePos.x -= 60.0f;
    ui.frame([&] { r = line_plot("##z", &s, 1, o); });
    CHECK(r.view.x_lo > lo_before);
    ui.io().MouseDown[0] = false;
    ui.frame([&] { r = line_plot("##z", &s, 1, o); });
    CHECK_FALSE(r.clicked);  // a drag is not a click
    // Double-click: two clicks in quick succession.
    for (int k = 0; k < 2; ++k) {
        ui.io().MouseDown[0] = true;
        ui.frame([&] { r = line_plot("##z", &s, 1, o); });
        ui.io().MouseDown[0] = false;
        ui.frame([&] { r = line_plot("##z", &s, 1, o); });
    }
    CHECK(r.view.x_lo == Approx(-pad));
    CHECK(r.view.x_hi == Approx(999.0 + pad));
}

TEST_CASE("line_plot: log y skips non-positive values; empty input is safe", "[line_plot]") {
    HeadlessImGui ui;
    const std::vector<float> y = {100.0f, 10.0f, 0.0f, -1.0f, 1.0f, 0.01f, NAN};
    PlotSeries s;
    s.y = ValueSpan(y);
    LinePlotOptions o;
    o.log_y = true;
    o.size = ImVec2(400, 200);
    LinePlotResult r;
    ui.frame([&] { r = line_plot("##log", &s, 1, o); });
    CHECK(r.vertices == 4);
    CHECK(r.view.y_lo < -2.0);  // log10(0.01) = -2, padded
    CHECK(r.view.y_hi > 2.0);
    ui.frame([&] { r = line_plot("##none", nullptr, 3, o); });
    CHECK(r.vertices == 0);
    PlotSeries e;
    ui.frame([&] { r = line_plot("##empty", &e, 1, o); });
    CHECK(r.vertices == 0);
}

TEST_CASE("line_plot: several y ticks at the Loss page's height (issue 34)", "[line_plot]") {
    HeadlessImGui ui;
    const std::vector<double> loss = {3.4, 3.1, 2.9, 2.7, 2.5};
    PlotSeries s;
    s.y = ValueSpan(loss);
    LinePlotOptions o;
    LinePlotResult r;
    ui.frame([&] {
        o.size = ImVec2(600, 8 * ImGui::GetTextLineHeight());  // the page's smallest curve: 8 lines
        r = line_plot("##loss", &s, 1, o);
    });
    CHECK_FALSE(r.log_y);
    CHECK(r.y_ticks >= 3);
}

TEST_CASE("line_plot: a log y scale when the values in view span two decades", "[line_plot]") {
    HeadlessImGui ui;
    std::vector<double> loss;
    for (int i = 0; i < 200; ++i) loss.push_back(2.3 * std::exp(-0.03 * i));  // 2.3 down to 0.006
    PlotSeries s;
    s.y = ValueSpan(loss);
    LinePlotOptions o;
    o.size = ImVec2(600, 200);
    LinePlotResult r;
    ui.frame([&] { r = line_plot("##decay", &s, 1, o); });
    CHECK(r.log_y);
    CHECK(r.view.y_hi > std::log10(2.3));
    CHECK(r.view.y_lo < std::log10(0.0062));
    CHECK(r.y_ticks >= 3);
    // Zoomed into the first 20 steps (2.3 .. 1.3): linear again.
    ui.io().MousePos = ImVec2(r.plot_min.x + 1.0f, (r.plot_min.y + r.plot_max.y) * 0.5f);
    ui.io().MouseWheel = 15.0f;
    ui.frame([&] { r = line_plot("##decay", &s, 1, o); });
    CHECK_FALSE(r.log_y);
    CHECK(r.view.y_hi < 3.0);
    // Off: linear however wide; a value <= 0 in view keeps it linear too.
    o.auto_log_y = false;
    ui.frame([&] { r = line_plot("##decay_off", &s, 1, o); });
    CHECK_FALSE(r.log_y);
    o.auto_log_y = true;
    loss[100] = 0.0;
    ui.frame([&] { r = line_plot("##decay_zero", &s, 1, o); });
    CHECK_FALSE(r.log_y);
}
