// layer_maps.h: what the per-layer views (On image, Neurons) show of one
// module's activation or gradient for one sample, computed from the kept
// values of its tensor. Pure arithmetic over TensorValues: no chunk reads.
//
// Layouts, from the recorded shape [B, ...] (row = the sample's batch row):
//   Conv    [B, C, H, W]: map[h][w] = mean over c of |x[row, c, h, w]|;
//           neuron c's strength = mean over (h, w) of |x[row, c, h, w]|, its
//           own map is x[row, c] (H x W).
//   Tokens  [B, T, D]: per-token strength mean over d of |x[row, t, d]| laid
//           on the patch grid: n x n when T = n^2, or T - 1 = n^2 (the first
//           token, [CLS], is left out of the map), else 1 x T; neuron d's
//           strength = mean over t of |x[row, t, d]|.
//   Vector  [B, D]: no map; neuron d's strength = |x[row, d]|.
//   Other   anything else (0-d, [B], 5-d, ...): no map; each element is a
//           neuron with strength |x|.
// `order` lists neurons strongest first; equal strengths keep index order
// (a stable sort). `problem` says why nothing was computed: the row is past
// the rows kept (beyond --max-elems), or the values are not a batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

struct LayerMaps {
  enum class Layout { Conv, Tokens, Vector, Other };
  Layout layout = Layout::Other;
  std::string problem;        // "" when computed
  int map_rows = 0, map_cols = 0;
  std::vector<double> map;    // map_rows x map_cols, row-major; empty: no map
  bool skipped_cls = false;   // Tokens: the first token is not on the grid
  int neurons = 0;
  std::vector<double> strength;  // per neuron
  std::vector<int> order;        // neuron indices, strongest first
  int neuron_rows = 0, neuron_cols = 0;  // each neuron's own map (Conv: H x W; Tokens: the grid)
  std::vector<double> values;    // the sample's values, row-major over the dims after B
  std::vector<int64_t> sample_shape;  // the dims after B
  /// The value of neuron `n` at map cell (r, c) (Conv: x[n, r, c]; Tokens:
  /// x[token of cell, n]); NaN outside.
  double neuron_at(int n, int r, int c) const;
};

/// Computes the maps of batch row `row` of `values` (decoded with
/// TensorIndex::read_values; `full_shape` is the recorded shape, whose dim 0
/// is the batch even when only leading rows were kept).
LayerMaps layer_maps(const TensorValues& values, const std::vector<int64_t>& full_shape, int row);

/// "layer" layouts in words: "conv map", "tokens", "vector", "tensor".
const char* layout_label(LayerMaps::Layout layout);

}  // namespace tvis::viewer
