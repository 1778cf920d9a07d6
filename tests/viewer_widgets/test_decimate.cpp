#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "tvis/widgets/decimate.h"

using namespace tvis::widgets;

namespace {

int column_of(double x, double lo, double hi, int columns) {
    return std::clamp(static_cast<int>((x - lo) * (columns / (hi - lo))), 0, columns - 1);
}

// Checks the contract of decimate_min_max against a brute-force pass.
void check_decimation(ValueSpan xs, ValueSpan ys, double lo, double hi, int columns) {
    std::vector<DecimatedVertex> out;
    const DecimateStats st = decimate_min_max(xs, ys, lo, hi, columns, false, &out);
    std::map<int, std::pair<double, double>> truth;  // column -> (min, max)
    for (std::size_t i = 0; i < ys.size(); ++i) {
        const double x = xs.empty() ? static_cast<double>(i) : xs[i];
        const double y = ys[i];
        if (x < lo || x > hi || !std::isfinite(y)) continue;
        const int c = column_of(x, lo, hi, columns);
        auto it = truth.find(c);
        if (it == truth.end()) truth[c] = {y, y};
        else it->second = {std::min(it->second.first, y), std::max(it->second.second, y)};
    }
    std::map<int, std::vector<double>> got;
    std::size_t outside = 0;
    for (const auto& v : out) {
        if (std::isnan(v.y)) continue;
        if (v.x < lo || v.x > hi) { ++outside; continue; }
        got[column_of(v.x, lo, hi, columns)].push_back(v.y);
        CHECK(v.y == ys[v.index]);  // vertices are real points
    }
    CHECK(outside <= 2);
    CHECK(st.vertices <= static_cast<std::size_t>(2 * columns + 2));
    for (const auto& [c, ysc] : got) {
        INFO("column " << c);
        CHECK(ysc.size() <= 2);
    }
    for (const auto& [c, mm] : truth) {
        INFO("column " << c);
        const auto& g = got[c];
        CHECK(std::find(g.begin(), g.end(), mm.first) != g.end());
        CHECK(std::find(g.begin(), g.end(), mm.second) != g.end());
    }
}

}  // namespace

TEST_CASE("decimation: 1e6 points, at most 2 vertices per column, true min and max kept", "[decimate]") {
    std::mt19937 rng(42);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    std::vector<float> y(1000000);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::sin(i * 1e-4f) + 0.1f * noise(rng);
    y[123457] = 50.0f;   // spikes that a naive stride would miss
    y[987653] = -40.0f;
    check_decimation(ValueSpan(), ValueSpan(y), 0.0, 999999.0, 800);
    check_decimation(ValueSpan(), ValueSpan(y), 100000.5, 130000.25, 333);  // zoomed view

    std::vector<DecimatedVertex> out;
    const DecimateStats st = decimate_min_max(ValueSpan(), ValueSpan(y), 0.0, 999999.0, 800, false, &out);
    CHECK(st.points_visited == 1000000);
    CHECK(st.y_max == 50.0);
    CHECK(st.y_min == -40.0);
}

TEST_CASE("decimation: explicit sorted x with uneven spacing", "[decimate]") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> step(0.0, 2.0);
    std::vector<double> x(50000), y(50000);
    double xv = -1000.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        xv += step(rng);
        x[i] = xv;
        y[i] = std::cos(xv * 0.01) * (1.0 + (i % 97 == 0 ? 3.0 : 0.0));
    }
    check_decimation(ValueSpan(x), ValueSpan(y), x[100], x[40000], 517);
}

TEST_CASE("decimation: few points are passed through, neighbours reach the edges", "[decimate]") {
    const std::vector<float> y = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    std::vector<DecimatedVertex> out;
    decimate_min_max(ValueSpan(), ValueSpan(y), 2.5, 6.5, 100, false, &out);
    REQUIRE(out.size() == 6);  // point 2 (left neighbour), 3..6, point 7 (right neighbour)
    CHECK(out.front().index == 2);
    CHECK(out.back().index == 7);
}

TEST_CASE("decimation: NaN and non-positive log values leave gaps", "[decimate]") {
    std::vector<float> y(1000, 1.0f);
    for (int i = 400; i < 600; ++i) y[i] = NAN;
    y[100] = -5.0f;
    std::vector<DecimatedVertex> out;
    decimate_min_max(ValueSpan(), ValueSpan(y), 0.0, 999.0, 100, false, &out);
    const auto breaks = std::count_if(out.begin(), out.end(), [](const DecimatedVertex& v) { return std::isnan(v.y); });
    CHECK(breaks == 20);  // 20 columns hold only NaN
    const DecimateStats st = decimate_min_max(ValueSpan(), ValueSpan(y), 0.0, 999.0, 100, true, &out);
    CHECK(st.y_min == 0.0);  // log10(1); the -5 is skipped
    for (const auto& v : out)
        if (!std::isnan(v.y)) CHECK(v.index != 100u);
    // Degenerate inputs.
    CHECK(decimate_min_max(ValueSpan(), ValueSpan(y), 5.0, 5.0, 100, false, &out).vertices == 0);
    CHECK(decimate_min_max(ValueSpan(), ValueSpan(), 0.0, 1.0, 100, false, &out).vertices == 0);
    CHECK(decimate_min_max(ValueSpan(), ValueSpan(y), 0.0, 1.0, 0, false, &out).vertices == 0);
}
