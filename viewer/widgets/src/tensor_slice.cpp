#include "tvis/widgets/tensor_slice.h"

#include <cmath>
#include <limits>

namespace tvis::widgets {
namespace {

bool fail(std::string* error, std::string message) {
    if (error) *error = std::move(message);
    return false;
}

// Element count of shape, or -1 if a dimension is negative or it overflows.
std::int64_t element_count(const std::vector<std::int64_t>& shape) {
    std::int64_t n = 1;
    for (std::int64_t d : shape) {
        if (d < 0) return -1;
        if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) return -1;
        n *= d;
    }
    return n;
}

}  // namespace

SliceSpec default_slice_spec(const std::vector<std::int64_t>& shape) {
    SliceSpec s;
    const int rank = static_cast<int>(shape.size());
    s.index.assign(shape.size(), 0);
    if (rank == 0) {
        s.row_axis = s.col_axis = -1;
    } else if (rank == 1) {
        s.row_axis = -1;
        s.col_axis = 0;
    } else {
        s.row_axis = rank - 2;
        s.col_axis = rank - 1;
    }
    return s;
}

bool extract_slice(ValueSpan values, const std::vector<std::int64_t>& shape, const SliceSpec& spec, Slice2D* out,
                   std::string* error) {
    if (!out) return fail(error, "extract_slice: no output slice given");
    const int rank = static_cast<int>(shape.size());
    const std::int64_t count = element_count(shape);
    if (count < 0) return fail(error, "tensor shape has a negative or overflowing dimension");
    if (static_cast<std::uint64_t>(count) != values.size())
        return fail(error, "tensor shape holds " + std::to_string(count) + " elements but " +
                               std::to_string(values.size()) + " values were given");

    // Row-major strides.
    std::vector<std::int64_t> stride(shape.size(), 1);
    for (int a = rank - 2; a >= 0; --a) stride[a] = stride[a + 1] * shape[a + 1];

    int row_axis = spec.row_axis, col_axis = spec.col_axis;
    if (rank == 0) {
        row_axis = col_axis = -1;
    } else if (rank == 1) {
        if (col_axis != 0 || row_axis != -1)
            return fail(error, "a 1-D tensor needs row_axis -1 and col_axis 0");
    } else {
        if (row_axis < 0 || row_axis >= rank) return fail(error, "row_axis " + std::to_string(row_axis) + " is not an axis of a rank-" + std::to_string(rank) + " tensor");
        if (col_axis < 0 || col_axis >= rank) return fail(error, "col_axis " + std::to_string(col_axis) + " is not an axis of a rank-" + std::to_string(rank) + " tensor");
        if (row_axis == col_axis) return fail(error, "row_axis and col_axis are both " + std::to_string(row_axis));
    }
    if (static_cast<int>(spec.index.size()) > rank)
        return fail(error, "index has " + std::to_string(spec.index.size()) + " entries for a rank-" + std::to_string(rank) + " tensor");

    std::int64_t base = 0;
    for (int a = 0; a < rank; ++a) {
        if (a == row_axis || a == col_axis) continue;
        const std::int64_t i = a < static_cast<int>(spec.index.size()) ? spec.index[a] : 0;
        if (i < 0 || i >= shape[a])
            return fail(error, "index " + std::to_string(i) + " is out of range for axis " + std::to_string(a) +
                                   " of size " + std::to_string(shape[a]));
        base += i * stride[a];
    }

    const std::int64_t rows = row_axis >= 0 ? shape[row_axis] : 1;
    const std::int64_t cols = col_axis >= 0 ? shape[col_axis] : 1;
    if (rows > std::numeric_limits<int>::max() || cols > std::numeric_limits<int>::max() ||
        rows * cols > kMaxSliceElements)
        return fail(error, "slice of " + std::to_string(rows) + " x " + std::to_string(cols) + " is too large to show");
    const std::int64_t row_stride = row_axis >= 0 ? stride[row_axis] : 0;
    const std::int64_t col_stride = col_axis >= 0 ? stride[col_axis] : 0;

    Slice2D s;
    s.rows = static_cast<int>(rows);
    s.cols = static_cast<int>(cols);
    s.values.resize(static_cast<std::size_t>(rows * cols));
    std::size_t k = 0;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c)
            s.values[k++] = values[static_cast<std::size_t>(base + r * row_stride + c * col_stride)];
    *out = std::move(s);
    return true;
}

}  // namespace tvis::widgets

