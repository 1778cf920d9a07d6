// block_means.h: a rows x cols grid merged into blocks of equal size, each
// the mean of its cells, so that neither side has more than `max_side`
// blocks. The one rule for every grid the viewer shrinks: the layer panel's
// map drawn over a picture and its neuron thumbnails, and the test surface's
// matrices (LAYER.map, the Attention view's weights and rollout).
//
// Block size: ceil(rows / max_side) x ceil(cols / max_side) cells; the last
// block of a row or column holds what is left (its mean is over its own
// cells only).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tvis::viewer {

struct BlockMeans {
  int block_rows = 1, block_cols = 1;  // cells per block, each side
  int rows = 0, cols = 0;              // blocks, each side
  std::vector<double> means;           // rows x cols, row-major
  /// The cells block (r, c) covers: [r0, r1) x [c0, c1).
  int r0(int r) const { return r * block_rows; }
  int c0(int c) const { return c * block_cols; }
};

/// Block means of the grid whose cell (r, c) is at(r, c).
template <typename At>
BlockMeans block_means(int rows, int cols, int max_side, At&& at) {
  BlockMeans b;
  if (rows <= 0 || cols <= 0 || max_side <= 0) return b;
  b.block_rows = std::max(1, (rows + max_side - 1) / max_side);
  b.block_cols = std::max(1, (cols + max_side - 1) / max_side);
  b.rows = (rows + b.block_rows - 1) / b.block_rows;
  b.cols = (cols + b.block_cols - 1) / b.block_cols;
  b.means.reserve(static_cast<size_t>(b.rows) * b.cols);
  for (int r0 = 0; r0 < rows; r0 += b.block_rows)
    for (int c0 = 0; c0 < cols; c0 += b.block_cols) {
      const int r1 = std::min(rows, r0 + b.block_rows), c1 = std::min(cols, c0 + b.block_cols);
      double sum = 0;
      for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c) sum += at(r, c);
      b.means.push_back(sum / ((r1 - r0) * (c1 - c0)));
    }
  return b;
}

/// The same over a row-major vector (`grid.size()` >= rows * cols).
inline BlockMeans block_means(const std::vector<double>& grid, int rows, int cols, int max_side) {
  return block_means(rows, cols, max_side,
                     [&](int r, int c) { return grid[static_cast<size_t>(r) * static_cast<size_t>(cols) + c]; });
}

}  // namespace tvis::viewer
