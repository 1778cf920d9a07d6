#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "headless_imgui.h"
#include "tvis/widgets/sparkline.h"

using namespace tvis::widgets;
using tvis::widgets::test::HeadlessImGui;

TEST_CASE("sparkline: decimated, hover gives the exact value", "[sparkline]") {
    HeadlessImGui ui;
    std::vector<float> v(100000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 100);
    SparklineResult r;
    ImVec2 origin;
    ui.frame([&] {
        origin = ImGui::GetCursorScreenPos();
        r = sparkline("##s", ValueSpan(v), ImVec2(100, 20));
    });
    CHECK(r.vertices <= 2 * 98 + 2);
    CHECK_FALSE(r.hovered);
    ui.io().MousePos = ImVec2(origin.x + 1.0f + 98.0f * 0.5f, origin.y + 10.0f);
    ui.frame([&] { r = sparkline("##s", ValueSpan(v), ImVec2(100, 20)); });
    REQUIRE(r.hovered);
    REQUIRE(r.has_point);
    CHECK(r.index == 50000);
    CHECK(r.value == v[r.index]);
    const std::vector<float> empty;
    ui.frame([&] { r = sparkline("##e", ValueSpan(empty)); });
    CHECK(r.vertices == 0);
}
