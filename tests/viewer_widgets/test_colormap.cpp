#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "tvis/widgets/colormap.h"

using namespace tvis::widgets;

namespace {
int distance(Rgb8 a, Rgb8 b) { return std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b); }
Rgb8 unpack(ImU32 c) {
    return {static_cast<std::uint8_t>(c >> IM_COL32_R_SHIFT), static_cast<std::uint8_t>(c >> IM_COL32_G_SHIFT),
            static_cast<std::uint8_t>(c >> IM_COL32_B_SHIFT)};
}
}  // namespace

TEST_CASE("sequential colormap: dark violet to yellow, lightness strictly rising", "[colormap]") {
    const Rgb8 lo = colormap_rgb(Colormap::Sequential, 0.0), hi = colormap_rgb(Colormap::Sequential, 1.0);
    CHECK(lo.b > lo.g);  // violet-blue at the bottom
    CHECK(hi.r > 200);
    CHECK(hi.g > 200);
    CHECK(hi.b < 80);    // yellow at the top
    CHECK(perceived_lightness(lo) < 20.0);
    CHECK(perceived_lightness(hi) > 85.0);
    // 256 samples: never darker than the previous one beyond 8-bit rounding
    // noise; 33 samples (about two per anchor step): strictly and clearly lighter.
    double prev = -1.0;
    for (int i = 0; i <= 255; ++i) {
        const double l = perceived_lightness(colormap_rgb(Colormap::Sequential, i / 255.0));
        INFO("sample " << i);
        CHECK(l > prev - 0.05);
        prev = l;
    }
    prev = -1.0;
    for (int i = 0; i <= 32; ++i) {
        const double l = perceived_lightness(colormap_rgb(Colormap::Sequential, i / 32.0));
        INFO("coarse sample " << i);
        CHECK(l > prev + 1.5);
        prev = l;
    }
    // Clamping and NaN.
    CHECK(distance(colormap_rgb(Colormap::Sequential, -3.0), lo) == 0);
    CHECK(distance(colormap_rgb(Colormap::Sequential, 7.0), hi) == 0);
    CHECK(distance(colormap_rgb(Colormap::Sequential, std::nan("")), lo) == 0);
}

TEST_CASE("diverging colormap: dark centre, lightness rising towards both ends", "[colormap]") {
    const Rgb8 neg = colormap_rgb(Colormap::Diverging, 0.0), pos = colormap_rgb(Colormap::Diverging, 1.0);
    CHECK(neg.b > neg.r);  // cool negative end
    CHECK(pos.r > pos.b);  // warm positive end
    const double centre = perceived_lightness(colormap_rgb(Colormap::Diverging, 0.5));
    double prev_up = centre, prev_down = centre;
    for (int i = 1; i <= 128; ++i) {
        const double up = perceived_lightness(colormap_rgb(Colormap::Diverging, 0.5 + i / 256.0));
        const double down = perceived_lightness(colormap_rgb(Colormap::Diverging, 0.5 - i / 256.0));
        INFO("step " << i);
        CHECK(up > prev_up - 0.05);
        CHECK(down > prev_down - 0.05);
        prev_up = up;
        prev_down = down;
    }
    for (int i = 1; i <= 16; ++i) {
        CHECK(perceived_lightness(colormap_rgb(Colormap::Diverging, 0.5 + i / 32.0)) >
              perceived_lightness(colormap_rgb(Colormap::Diverging, 0.5 + (i - 1) / 32.0)) + 1.0);
        CHECK(perceived_lightness(colormap_rgb(Colormap::Diverging, 0.5 - i / 32.0)) >
              perceived_lightness(colormap_rgb(Colormap::Diverging, 0.5 - (i - 1) / 32.0)) + 1.0);
    }
    // Both ends similarly light, so sign does not read as magnitude.
    CHECK(std::fabs(perceived_lightness(neg) - perceived_lightness(pos)) < 10.0);
}

TEST_CASE("non-finite colours are not in any colormap", "[colormap]") {
    for (Colormap m : {Colormap::Sequential, Colormap::Diverging}) {
        for (int i = 0; i <= 255; ++i) {
            const Rgb8 c = colormap_rgb(m, i / 255.0);
            CHECK(distance(c, unpack(kNanColor)) > 120);
            CHECK(distance(c, unpack(kInfColor)) > 120);
        }
    }
    const ColorRange r{0.0, 1.0};
    CHECK(colormap_color(Colormap::Sequential, r, std::nan("")) == kNanColor);
    CHECK(colormap_color(Colormap::Sequential, r, INFINITY) == kInfColor);
    CHECK(colormap_color(Colormap::Diverging, r, -INFINITY) == kInfColor);
}

TEST_CASE("color ranges ignore non-finite values; symmetric centres zero", "[colormap]") {
    const std::vector<float> v = {NAN, -2.0f, 0.5f, INFINITY, 3.0f};
    const ColorRange r = color_range_of(ValueSpan(v), false);
    CHECK(r.lo == -2.0);
    CHECK(r.hi == 3.0);
    const ColorRange s = color_range_of(ValueSpan(v), true);
    CHECK(s.lo == -3.0);
    CHECK(s.hi == 3.0);
    CHECK(color_range_t(s, 0.0) == 0.5);
    CHECK(color_range_t({2.0, 2.0}, 2.0) == 0.5);
    const std::vector<double> none = {NAN, NAN};
    CHECK(color_range_of(ValueSpan(none), false).hi == 1.0);
    CHECK(colormap_color(Colormap::Diverging, s, 0.0) == colormap_sample(Colormap::Diverging, 0.5));
}
