// tensor_slice.h: a 2-D slice of an N-D row-major tensor, for heatmaps and
// value tables ("axis pickers").
//
// Usage:
//   // x has shape [N, C, H, W]; show channel 3 of sample 0 as an H x W image.
//   SliceSpec spec;
//   spec.row_axis = 2; spec.col_axis = 3;
//   spec.index = {0, 3, 0, 0};            // entries for row/col axes ignored
//   Slice2D s;
//   std::string err;
//   if (!extract_slice(ValueSpan(x.data(), x.size()), shape, spec, &s, &err)) show(err);
//
// Contracts:
// - shape lists the dimensions, outermost first; the element count is their
//   product and must equal values.size().
// - 0-D tensors give a 1x1 slice; 1-D tensors give a 1 x n slice (row_axis
//   must be -1 then, col_axis 0). Otherwise row_axis and col_axis are two
//   distinct axes in [0, rank); row_axis > col_axis gives the transpose.
// - spec.index has one entry per axis (the row/col entries are ignored); a
//   shorter vector is padded with zeros. Each used index must be in range.
// - On failure nothing is written to *out and *error (if given) receives a
//   one-line reason naming the bad argument. Never throws, never reads out of
//   bounds. Slices above kMaxSliceElements are refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/widgets/value_span.h"

namespace tvis::widgets {

constexpr std::int64_t kMaxSliceElements = std::int64_t(1) << 24;  // 16 Mi values (4096 x 4096)

struct SliceSpec {
    int row_axis = 0;
    int col_axis = 1;
    std::vector<std::int64_t> index;  // fixed index per axis
};

struct Slice2D {
    int rows = 0;
    int cols = 0;
    std::vector<double> values;  // row-major, rows * cols; exact copies of the source
    double at(int r, int c) const { return values[static_cast<std::size_t>(r) * cols + c]; }
};

// The default picks for a shape: the last two axes as rows/cols (or the
// single axis as columns), every other index 0.
SliceSpec default_slice_spec(const std::vector<std::int64_t>& shape);

bool extract_slice(ValueSpan values, const std::vector<std::int64_t>& shape, const SliceSpec& spec, Slice2D* out,
                   std::string* error);

}  // namespace tvis::widgets
