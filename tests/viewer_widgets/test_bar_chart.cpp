#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "headless_imgui.h"
#include "tvis/widgets/bar_chart.h"

using namespace tvis::widgets;
using tvis::widgets::test::HeadlessImGui;

TEST_CASE("bar_chart: hover reports the original index, sorted or not", "[bar_chart]") {
    HeadlessImGui ui;
    const std::vector<float> logits = {0.5f, 3.25f, -1.0f, NAN, 2.0f};
    const char* names[] = {"cat", "dog", "ship", "broken", "frog"};
    BarChartOptions o;
    o.size = ImVec2(400, 0);
    BarChartResult r;
    ImVec2 origin;
    ui.frame([&] {
        origin = ImGui::GetCursorScreenPos();
        r = bar_chart("##b", ValueSpan(logits), names, o);
    });
    CHECK_FALSE(r.hovered);
    const float row_h = ImGui::GetTextLineHeight() + 4.0f;
    const float pad = 4.0f;  // the chart's inner padding
    auto row_y = [&](int row) { return origin.y + pad + (row + 0.5f) * row_h; };

    ui.io().MousePos = ImVec2(origin.x + 200.0f, row_y(1));
    ui.frame([&] { r = bar_chart("##b", ValueSpan(logits), names, o); });
    REQUIRE(r.hovered);
    CHECK(r.index == 1);
    CHECK(r.value == 3.25f);

    o.sorted = true;  // order: dog 3.25, frog 2, cat 0.5, ship -1, broken NaN
    ui.io().MousePos = ImVec2(origin.x + 200.0f, row_y(1));
    ui.frame([&] { r = bar_chart("##b", ValueSpan(logits), names, o); });
    ui.frame([&] { r = bar_chart("##b", ValueSpan(logits), names, o); });
    REQUIRE(r.hovered);
    CHECK(r.index == 4);
    ui.io().MousePos = ImVec2(origin.x + 200.0f, row_y(4));
    ui.frame([&] { r = bar_chart("##b", ValueSpan(logits), names, o); });
    REQUIRE(r.hovered);
    CHECK(r.index == 3);
    CHECK(std::isnan(r.value));
}

TEST_CASE("bar_chart: 1e5 bars only draw the visible rows", "[bar_chart]") {
    HeadlessImGui ui;
    std::vector<double> v(100000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<double>(i));
    BarChartOptions o;
    o.size = ImVec2(400, 300);
    int vertices = 0;
    float row_h = 0.0f;
    ui.frame([&] {
        row_h = ImGui::GetTextLineHeight() + 4.0f;  // the chart's row pitch
        bar_chart("##many", ValueSpan(v), nullptr, o);
    });
    // The bars live in the child window's draw list; count every list of the frame.
    ImDrawData* dd = ImGui::GetDrawData();
    for (int i = 0; i < dd->CmdListsCount; ++i) vertices += dd->CmdLists[i]->VtxBuffer.Size;
    // Every visible row draws its bar (a filled rectangle: 4 vertices) and its
    // index label (4 per glyph); the other 1e5 rows draw nothing.
    const int visible = static_cast<int>(o.size.y / row_h);
    REQUIRE(visible >= 10);
    CHECK(vertices >= visible * (4 + 4));
    CHECK(vertices < 30000);
}
