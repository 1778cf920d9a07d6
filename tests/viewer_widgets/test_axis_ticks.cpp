#include <catch2/catch.hpp>

#include <cmath>

#include "tvis/widgets/axis_ticks.h"

using namespace tvis::widgets;

TEST_CASE("nice_ticks: 1-2-5 steps inside the range", "[ticks]") {
    const auto t = nice_ticks(0.0, 0.97, 6);
    REQUIRE(t.size() == 5);
    CHECK(t[0] == 0.0);
    CHECK(t[4] == Approx(0.8));
    const auto u = nice_ticks(-3.0, 1000.0, 5);
    REQUIRE(!u.empty());
    CHECK(u.size() <= 5);
    for (std::size_t i = 0; i < u.size(); ++i) {
        CHECK(u[i] >= -3.0);
        CHECK(u[i] <= 1000.0);
    }
    CHECK(u[1] - u[0] == Approx(500.0));
}

TEST_CASE("nice_ticks: degenerate ranges", "[ticks]") {
    CHECK(nice_ticks(1.0, 1.0, 5).size() == 1);
    CHECK(nice_ticks(NAN, 1.0, 5).empty());
    CHECK(nice_ticks(0.0, INFINITY, 5).empty());
    CHECK(nice_ticks(5.0, 0.0, 6).size() == 6);  // reversed bounds are swapped
}

TEST_CASE("tick_labels: enough digits to tell neighbours apart", "[ticks]") {
    const auto t = nice_ticks(1000.1, 1000.5, 5);
    const auto l = tick_labels(t);
    REQUIRE(l.size() == t.size());
    for (std::size_t i = 1; i < l.size(); ++i) CHECK(l[i] != l[i - 1]);
    CHECK(tick_labels({0.0, 0.5, 1.0}) == std::vector<std::string>{"0", "0.5", "1"});
    CHECK(tick_labels({0.0, 200000.0, 400000.0}) == std::vector<std::string>{"0", "200k", "400k"});
}

TEST_CASE("nice_integer_ticks: a count's axis has whole numbers only", "[ticks]") {
    // A loss curve of 3 steps (x 0..2, padded): 0, 1, 2, not 0, 0.2, 0.4, ...
    CHECK(nice_integer_ticks(-0.04, 2.04, 14) == std::vector<double>{0.0, 1.0, 2.0});
    CHECK(nice_integer_ticks(0.0, 0.0, 5) == std::vector<double>{0.0});
    CHECK(nice_integer_ticks(0.2, 0.8, 5).empty());  // no whole number inside
    // Wide ranges keep nice_ticks' 1-2-5 spacing.
    CHECK(nice_integer_ticks(0.0, 1000.0, 6) == nice_ticks(0.0, 1000.0, 6));
    CHECK(nice_integer_ticks(NAN, 3.0, 5).empty());
    for (double t : nice_integer_ticks(-7.3, 12.9, 30)) CHECK(t == std::floor(t));
}
