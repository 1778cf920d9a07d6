#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <vector>

#include "tvis/widgets/tensor_slice.h"

using namespace tvis::widgets;

namespace {
std::vector<float> iota_tensor(std::size_t n) {
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), 0.0f);
    return v;
}
}  // namespace

TEST_CASE("3-D slice: rows and cols from the last two axes, first axis fixed", "[slice]") {
    const std::vector<std::int64_t> shape = {2, 3, 4};
    const auto t = iota_tensor(24);
    SliceSpec spec;
    spec.row_axis = 1;
    spec.col_axis = 2;
    spec.index = {1, 0, 0};
    Slice2D s;
    std::string err;
    REQUIRE(extract_slice(ValueSpan(t), shape, spec, &s, &err));
    REQUIRE(s.rows == 3);
    REQUIRE(s.cols == 4);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) CHECK(s.at(r, c) == 12 + r * 4 + c);
}

TEST_CASE("3-D slice: transposed picks and a middle fixed axis", "[slice]") {
    const std::vector<std::int64_t> shape = {2, 3, 4};
    const auto t = iota_tensor(24);
    SliceSpec spec;
    spec.row_axis = 2;  // rows walk the last axis
    spec.col_axis = 0;
    spec.index = {0, 2, 0};
    Slice2D s;
    REQUIRE(extract_slice(ValueSpan(t), shape, spec, &s, nullptr));
    REQUIRE(s.rows == 4);
    REQUIRE(s.cols == 2);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 2; ++c) CHECK(s.at(r, c) == c * 12 + 2 * 4 + r);
}

TEST_CASE("4-D slice: an NCHW activation, channel map of one sample", "[slice]") {
    const std::vector<std::int64_t> shape = {2, 3, 4, 5};
    const auto t = iota_tensor(120);
    SliceSpec spec;
    spec.row_axis = 0;
    spec.col_axis = 3;
    spec.index = {0, 2, 1, 0};
    Slice2D s;
    REQUIRE(extract_slice(ValueSpan(t), shape, spec, &s, nullptr));
    REQUIRE(s.rows == 2);
    REQUIRE(s.cols == 5);
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 5; ++c) CHECK(s.at(r, c) == r * 60 + 2 * 20 + 1 * 5 + c);
    // A shorter index vector pads with zeros.
    spec.index = {0, 1};
    REQUIRE(extract_slice(ValueSpan(t), shape, spec, &s, nullptr));
    CHECK(s.at(1, 4) == 60 + 20 + 4);
}

TEST_CASE("slices keep doubles exact and NaN as NaN", "[slice]") {
    std::vector<double> t = {0.1, 1e-300, NAN, -INFINITY};
    Slice2D s;
    REQUIRE(extract_slice(ValueSpan(t), {2, 2}, default_slice_spec({2, 2}), &s, nullptr));
    CHECK(s.at(0, 0) == 0.1);
    CHECK(s.at(0, 1) == 1e-300);
    CHECK(std::isnan(s.at(1, 0)));
    CHECK(s.at(1, 1) == -INFINITY);
}

TEST_CASE("0-D and 1-D tensors", "[slice]") {
    const std::vector<float> one = {7.0f};
    Slice2D s;
    REQUIRE(extract_slice(ValueSpan(one), {}, default_slice_spec({}), &s, nullptr));
    CHECK(s.rows == 1);
    CHECK(s.cols == 1);
    CHECK(s.at(0, 0) == 7.0);
    const auto v = iota_tensor(6);
    REQUIRE(extract_slice(ValueSpan(v), {6}, default_slice_spec({6}), &s, nullptr));
    CHECK(s.rows == 1);
    CHECK(s.cols == 6);
    CHECK(s.at(0, 5) == 5.0);
}

TEST_CASE("bad slice requests fail with a message naming the problem", "[slice]") {
    const auto t = iota_tensor(24);
    const std::vector<std::int64_t> shape = {2, 3, 4};
    Slice2D s;
    s.rows = 99;
    std::string err;
    SliceSpec spec = default_slice_spec(shape);

    spec.index = {2, 0, 0};
    CHECK_FALSE(extract_slice(ValueSpan(t), shape, spec, &s, &err));
    CHECK(err == "index 2 is out of range for axis 0 of size 2");
    CHECK(s.rows == 99);  // untouched

    spec = default_slice_spec(shape);
    spec.col_axis = spec.row_axis;
    CHECK_FALSE(extract_slice(ValueSpan(t), shape, spec, &s, &err));
    CHECK(err.find("both") != std::string::npos);

    spec = default_slice_spec(shape);
    spec.row_axis = 3;
    CHECK_FALSE(extract_slice(ValueSpan(t), shape, spec, &s, &err));
    CHECK(err.find("row_axis 3") != std::string::npos);

    CHECK_FALSE(extract_slice(ValueSpan(t.data(), 23), shape, default_slice_spec(shape), &s, &err));
    CHECK(err == "tensor shape holds 24 elements but 23 values were given");

    CHECK_FALSE(extract_slice(ValueSpan(t), {-1, 24}, default_slice_spec({-1, 24}), &s, &err));
    CHECK(err.find("negative") != std::string::npos);

    CHECK_FALSE(extract_slice(ValueSpan(t), {1LL << 40, 1LL << 40}, default_slice_spec({1, 1}), &s, &err));

    spec = default_slice_spec({24});
    spec.row_axis = 0;
    CHECK_FALSE(extract_slice(ValueSpan(t), {24}, spec, &s, &err));
    CHECK(err.find("1-D") != std::string::npos);
    CHECK_FALSE(extract_slice(ValueSpan(t), shape, default_slice_spec(shape), nullptr, &err));
}
