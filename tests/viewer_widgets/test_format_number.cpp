#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "tvis/widgets/format_number.h"

using tvis::widgets::format_exact;
using tvis::widgets::format_number;

TEST_CASE("format_number: three significant digits, plain decimals in the middle range", "[format]") {
    CHECK(format_number(0.0) == "0");
    CHECK(format_number(1.0) == "1");
    CHECK(format_number(0.5) == "0.5");
    CHECK(format_number(12.345) == "12.3");
    CHECK(format_number(-12.355) == "-12.4");
    CHECK(format_number(123.4) == "123");
    CHECK(format_number(0.00123456) == "0.00123");
    CHECK(format_number(0.001) == "0.001");
    CHECK(format_number(2.5, 2) == "2.5");
}

TEST_CASE("format_number: SI suffixes and scientific notation", "[format]") {
    CHECK(format_number(1000.0) == "1k");
    CHECK(format_number(1500.0) == "1.5k");
    CHECK(format_number(12345.0) == "12.3k");
    CHECK(format_number(-250e6) == "-250M");
    CHECK(format_number(3.21e9) == "3.21G");
    CHECK(format_number(7e12) == "7T");
    CHECK(format_number(4.2e18) == "4.2e+18");
    CHECK(format_number(0.000123) == "1.23e-04");
    CHECK(format_number(-1.5e-7) == "-1.5e-07");
}

TEST_CASE("format_number: rounding crosses boundaries before the style is chosen", "[format]") {
    CHECK(format_number(999.96) == "1k");
    CHECK(format_number(999999.0) == "1M");
    CHECK(format_number(0.00099996) == "0.001");
    CHECK(format_number(9.999e14) == "1e+15");
}

TEST_CASE("format_number and format_exact: non-finite values", "[format]") {
    CHECK(format_number(std::nan("")) == "nan");
    CHECK(format_number(INFINITY) == "inf");
    CHECK(format_number(-INFINITY) == "-inf");
    CHECK(format_exact(std::nan("")) == "nan");
    CHECK(format_exact(-INFINITY) == "-inf");
}

TEST_CASE("format_exact: %.9g round-trips floats", "[format]") {
    CHECK(format_exact(0.1f) == "0.100000001");
    CHECK(format_exact(1.0) == "1");
    CHECK(format_exact(-3.25e-12) == "-3.25e-12");
    const float f = 0.7342152f;
    CHECK(std::stof(format_exact(f)) == f);
    char small[4];
    CHECK(format_exact(small, sizeof small, 123456.0) > 0);  // truncated, still terminated
    CHECK(small[3] == '\0');
}
