#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "fake_uploader.h"
#include "headless_imgui.h"
#include "tvis/widgets/heatmap.h"

using namespace tvis::widgets;
using tvis::widgets::test::FakeUploader;
using tvis::widgets::test::HeadlessImGui;

namespace {

ImVec2 cell_centre(const HeatmapResult& r, int rows, int cols, int row, int col) {
    const float cw = (r.image_max.x - r.image_min.x) / cols, ch = (r.image_max.y - r.image_min.y) / rows;
    return ImVec2(r.image_min.x + (col + 0.5f) * cw, r.image_min.y + (row + 0.5f) * ch);
}

// Colour of the first draw-list vertex that lies strictly inside the point's cell rectangle region.
bool has_vertex_colour_near(const ImDrawList* dl, ImVec2 p, float radius, ImU32 colour) {
    for (const ImDrawVert& v : dl->VtxBuffer)
        if (std::fabs(v.pos.x - p.x) <= radius && std::fabs(v.pos.y - p.y) <= radius && v.col == colour) return true;
    return false;
}

}  // namespace

TEST_CASE("heatmap: hover reports the cell and its exact value; NaN/Inf drawn distinctly", "[heatmap]") {
    HeadlessImGui ui;
    const int rows = 4, cols = 6;
    std::vector<float> v(rows * cols);
    for (int i = 0; i < rows * cols; ++i) v[i] = 0.1f * i - 1.0f;
    v[1 * cols + 2] = NAN;
    v[3 * cols + 5] = INFINITY;
    HeatmapOptions o;
    o.size = ImVec2(600, 400);
    HeatmapResult r;
    const ImDrawList* dl = ui.frame([&] { r = heatmap("##h", ValueSpan(v), rows, cols, o); });
    CHECK(r.rects == 24);
    CHECK_FALSE(r.used_texture);
    CHECK(r.range.lo == Approx(-1.0));
    CHECK(r.range.hi == Approx(1.2));  // 0.1 * 22 - 1: cell 23 is Inf, ignored
    // Square cells (keep_aspect) inside the frame.
    const float cw = (r.image_max.x - r.image_min.x) / cols, ch = (r.image_max.y - r.image_min.y) / rows;
    CHECK(cw == Approx(ch).margin(0.5));
    // The NaN cell is magenta, the Inf cell white, a finite cell takes its colormap colour.
    const float half = cw * 0.5f + 0.5f;
    const ImVec2 nan_c = cell_centre(r, rows, cols, 1, 2);
    CHECK(has_vertex_colour_near(dl, nan_c, half, kNanColor));
    CHECK(has_vertex_colour_near(dl, cell_centre(r, rows, cols, 3, 5), half, kInfColor));
    CHECK(has_vertex_colour_near(dl, cell_centre(r, rows, cols, 0, 0), half,
                                 colormap_color(Colormap::Sequential, r.range, v[0])));

    ui.io().MousePos = cell_centre(r, rows, cols, 2, 3);
    ui.frame([&] { r = heatmap("##h", ValueSpan(v), rows, cols, o); });
    REQUIRE(r.hovered);
    CHECK(r.row == 2);
    CHECK(r.col == 3);
    CHECK(r.value == v[2 * cols + 3]);
    ui.io().MousePos = nan_c;
    ui.frame([&] { r = heatmap("##h", ValueSpan(v), rows, cols, o); });
    REQUIRE(r.hovered);
    CHECK(std::isnan(r.value));
    // Outside the image (on the colour bar): no cell.
    ui.io().MousePos = ImVec2(r.image_max.x + 6.0f, r.image_min.y + 5.0f);
    ui.frame([&] { r = heatmap("##h", ValueSpan(v), rows, cols, o); });
    CHECK_FALSE(r.hovered);
}

TEST_CASE("heatmap: symmetric and explicit ranges; aspect ratio; short data", "[heatmap]") {
    HeadlessImGui ui;
    const int rows = 10, cols = 40;
    std::vector<double> v(rows * cols, 0.5);
    v[7] = -2.0;
    HeatmapOptions o;
    o.size = ImVec2(800, 400);
    o.symmetric = true;
    o.colormap = Colormap::Diverging;
    HeatmapResult r;
    ui.frame([&] { r = heatmap("##s", ValueSpan(v), rows, cols, o); });
    CHECK(r.range.lo == -2.0);
    CHECK(r.range.hi == 2.0);
    const float w = r.image_max.x - r.image_min.x, h = r.image_max.y - r.image_min.y;
    CHECK(w / h == Approx(4.0).epsilon(0.02));
    CHECK(r.image_max.x <= 800.0f);
    o.has_range = true;
    o.range = {-10.0, 10.0};
    ui.frame([&] { r = heatmap("##s", ValueSpan(v), rows, cols, o); });
    CHECK(r.range.hi == 10.0);
    // A 1 x 1000 slice stays at least 16 px tall.
    std::vector<float> row(1000, 1.0f);
    ui.frame([&] { r = heatmap("##row", ValueSpan(row), 1, 1000, HeatmapOptions{}); });
    CHECK(r.image_max.y - r.image_min.y >= 16.0f);
    // Too few values: no image, no crash.
    ui.frame([&] { r = heatmap("##short", ValueSpan(row), 40, 40, HeatmapOptions{}); });
    CHECK(r.rects == 0);
    CHECK_FALSE(r.hovered);
}

TEST_CASE("heatmap: sub-pixel cells merge into blocks that keep spikes and NaN", "[heatmap]") {
    HeadlessImGui ui;
    const int n = 512;
    std::vector<float> v(n * n, 0.0f);
    v[100 * n + 100] = 5.0f;
    v[300 * n + 301] = NAN;
    HeatmapOptions o;
    o.size = ImVec2(300, 256);
    HeatmapResult r;
    const ImDrawList* dl = ui.frame([&] { r = heatmap("##big", ValueSpan(v), n, n, o); });
    CHECK(r.rects < static_cast<std::size_t>(n * n / 3));
    CHECK(r.rects > 0);
    CHECK(has_vertex_colour_near(dl, cell_centre(r, n, n, 100, 100), 2.0f, colormap_sample(Colormap::Sequential, 1.0)));
    CHECK(has_vertex_colour_near(dl, cell_centre(r, n, n, 300, 301), 2.0f, kNanColor));
    ColorRange range{0.0, 5.0};
    CHECK(heatmap_block_value(ValueSpan(v), n, 98, 102, 98, 102, range) == 5.0f);
    CHECK(std::isnan(heatmap_block_value(ValueSpan(v), n, 299, 302, 299, 302, range)));
}

TEST_CASE("heatmap: texture path uploads once and re-uploads only on change", "[heatmap]") {
    HeadlessImGui ui;
    FakeUploader up;
    const int rows = 100, cols = 120;
    std::vector<float> v(rows * cols);
    for (int i = 0; i < rows * cols; ++i) v[i] = static_cast<float>(i % 17);
    {
        HeatmapTexture tex;
        HeatmapOptions o;
        o.size = ImVec2(500, 400);
        o.uploader = &up;
        o.texture = &tex;
        HeatmapResult r;
        const ImDrawList* dl = ui.frame([&] { r = heatmap("##t", ValueSpan(v), rows, cols, o); });
        CHECK(r.used_texture);
        CHECK(r.rects == 0);
        CHECK(up.creates == 1);
        CHECK(up.last_w == cols);
        CHECK(up.last_h == rows);
        // Texel (0, 1) holds value 1 of range [0, 16].
        const ImU32 c = colormap_color(Colormap::Sequential, r.range, 1.0);
        CHECK(up.last_pixels[4] == static_cast<std::uint8_t>(c >> IM_COL32_R_SHIFT));
        CHECK(up.last_pixels[5] == static_cast<std::uint8_t>(c >> IM_COL32_G_SHIFT));
        bool drew_texture = false;
        for (const ImDrawCmd& cmd : dl->CmdBuffer) drew_texture = drew_texture || cmd.TextureId == tex.id;
        CHECK(drew_texture);

        ui.frame([&] { r = heatmap("##t", ValueSpan(v), rows, cols, o); });
        CHECK(up.creates == 1);
        CHECK(up.updates == 0);
        o.data_version = 1;  // same pointer, new content
        ui.frame([&] { r = heatmap("##t", ValueSpan(v), rows, cols, o); });
        CHECK(up.updates == 1);
        o.colormap = Colormap::Diverging;
        ui.frame([&] { r = heatmap("##t", ValueSpan(v), rows, cols, o); });
        CHECK(up.updates == 2);
        ui.frame([&] { r = heatmap("##t", ValueSpan(v), cols, rows, o); });  // new shape: new texture
        CHECK(up.creates == 2);
        CHECK(up.destroys == 1);
        CHECK(tex.uploads == 4);
    }
    CHECK(up.destroys == 2);  // the HeatmapTexture released its texture

    // A failing uploader falls back to rectangles.
    FakeUploader failing;
    failing.fail = true;
    HeatmapTexture tex2;
    HeatmapOptions o2;
    o2.uploader = &failing;
    o2.texture = &tex2;
    HeatmapResult r2;
    ui.frame([&] { r2 = heatmap("##f", ValueSpan(v), rows, cols, o2); });
    CHECK_FALSE(r2.used_texture);
    CHECK(r2.rects > 0);
}

TEST_CASE("heatmap_rgba: oversized images are block-reduced to the side limit", "[heatmap]") {
    std::vector<float> v(10 * 9000, 1.0f);
    v[5 * 9000 + 8999] = NAN;
    std::vector<std::uint8_t> px;
    int w = 0, h = 0;
    REQUIRE(heatmap_rgba(ValueSpan(v), 10, 9000, Colormap::Sequential, {0.0, 1.0}, 4096, &px, &w, &h));
    CHECK(w == 3000);
    CHECK(h == 10);
    const std::size_t last = (static_cast<std::size_t>(5) * w + (w - 1)) * 4;
    CHECK(px[last] == 255);
    CHECK(px[last + 1] == 0);
    CHECK(px[last + 2] == 255);
    CHECK_FALSE(heatmap_rgba(ValueSpan(v), 100, 9000, Colormap::Sequential, {0.0, 1.0}, 4096, &px, &w, &h));
}
