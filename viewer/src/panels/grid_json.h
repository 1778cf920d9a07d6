// grid_json.h: a grid for state(), shrunk to at most 256 cells a side by
// block means (block_means.h), as nested arrays (rows of numbers). LAYER.map
// and the Attention view's weights and rollout use it.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace tvis::viewer {

inline constexpr int kStateGridMaxSide = 256;

/// `grid` (rows x cols, row-major) as at most kStateGridMaxSide x kStateGridMaxSide block means.
nlohmann::json grid_json(const std::vector<double>& grid, int rows, int cols);

}  // namespace tvis::viewer
