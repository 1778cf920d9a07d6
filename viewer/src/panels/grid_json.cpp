// A grid for state(), as block means (grid_json.h).
#include "grid_json.h"

#include "tvis/viewer_model/block_means.h"

namespace tvis::viewer {

nlohmann::json grid_json(const std::vector<double>& grid, int rows, int cols) {
  const BlockMeans b = block_means(grid, rows, cols, kStateGridMaxSide);
  nlohmann::json out = nlohmann::json::array();
  for (int r = 0; r < b.rows; ++r)
    out.push_back(std::vector<double>(b.means.begin() + static_cast<std::ptrdiff_t>(r) * b.cols,
                                      b.means.begin() + static_cast<std::ptrdiff_t>(r + 1) * b.cols));
  return out;
}

}  // namespace tvis::viewer
