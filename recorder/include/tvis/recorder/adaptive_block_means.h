// adaptive_block_means.h: the thumbnail of a host float32 array, in one pass.
//
// Contract: the array is row-major [rows, cols]; the result is row-major
// [out_rows, out_cols] (1 <= out_rows <= rows, 1 <= out_cols <= cols), block
// (i, j) the mean of rows [floor(i * rows / out_rows), ceil((i + 1) * rows /
// out_rows)) and of the columns likewise: adaptive average pooling's windows
// (neighbouring windows share a row or column when the sizes do not divide),
// so it equals torch's adaptive_avg_pool2d of the [1, 1, rows, cols] view
// within float rounding. Sums in double, in a fixed order: the same array gives
// the same bits on any CPU. A NaN makes its blocks NaN, an infinity its blocks
// infinite (NaN where both signs meet).
#pragma once

#include <cstdint>
#include <vector>

namespace tvis::recorder {

std::vector<float> adaptive_block_means_f32(const float* values, int64_t rows, int64_t cols,
                                            int64_t out_rows, int64_t out_cols);

}  // namespace tvis::recorder
