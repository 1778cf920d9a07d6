#include "tvis/viewer_model/layer_maps.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tvis::viewer {

namespace {

int square_side(int64_t n) {
  if (n <= 0) return 0;
  const int64_t s = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(n))));
  return s * s == n ? static_cast<int>(s) : 0;
}

void sort_order(LayerMaps& m) {
  m.order.resize(m.strength.size());
  std::iota(m.order.begin(), m.order.end(), 0);
  const auto& s = m.strength;
  std::stable_sort(m.order.begin(), m.order.end(), [&](int a, int b) {
    const double x = std::isnan(s[a]) ? -1.0 : s[a], y = std::isnan(s[b]) ? -1.0 : s[b];
    return x > y;
  });
}

}  // namespace

double LayerMaps::neuron_at(int n, int r, int c) const {
  if (n < 0 || n >= neurons || r < 0 || c < 0 || r >= neuron_rows || c >= neuron_cols) return NAN;
  if (layout == Layout::Conv) return values[(static_cast<size_t>(n) * neuron_rows + r) * neuron_cols + c];
  if (layout == Layout::Tokens) {
    const size_t t = static_cast<size_t>(r) * neuron_cols + c + (skipped_cls ? 1 : 0);
    return values[t * static_cast<size_t>(neurons) + n];
  }
  return NAN;
}

LayerMaps layer_maps(const TensorValues& tv, const std::vector<int64_t>& full_shape, int row) {
  LayerMaps m;
  if (full_shape.empty() || tv.shape.empty()) {
    m.problem = "a 0-d value has no batch rows";
    return m;
  }
  const int64_t kept_rows = tv.shape[0];
  if (row < 0 || row >= full_shape[0]) {
    m.problem = "row " + std::to_string(row) + " is outside the batch of " + std::to_string(full_shape[0]);
    return m;
  }
  if (row >= kept_rows) {
    m.problem = "row " + std::to_string(row) + " was not kept (only the first " + std::to_string(kept_rows) +
                " rows were)";
    return m;
  }
  size_t per_row = 1;
  for (size_t d = 1; d < tv.shape.size(); ++d) per_row *= static_cast<size_t>(std::max<int64_t>(tv.shape[d], 0));
  if (tv.values.size() < per_row * static_cast<size_t>(row + 1)) {
    m.problem = "the kept values are shorter than their shape";
    return m;
  }
  m.sample_shape.assign(tv.shape.begin() + 1, tv.shape.end());
  m.values.assign(tv.values.begin() + static_cast<ptrdiff_t>(per_row * row),
                  tv.values.begin() + static_cast<ptrdiff_t>(per_row * (row + 1)));
  const std::vector<double>& x = m.values;

  if (tv.shape.size() == 4) {
    m.layout = LayerMaps::Layout::Conv;
    const int C = static_cast<int>(tv.shape[1]), H = static_cast<int>(tv.shape[2]), W = static_cast<int>(tv.shape[3]);
    m.neurons = C;
    m.neuron_rows = m.map_rows = H;
    m.neuron_cols = m.map_cols = W;
    m.map.assign(static_cast<size_t>(H) * W, 0.0);
    m.strength.assign(C, 0.0);
    const size_t hw = static_cast<size_t>(H) * W;
    for (int c = 0; c < C; ++c) {
      double sum = 0;
      const double* p = x.data() + hw * c;
      for (size_t i = 0; i < hw; ++i) {
        const double a = std::fabs(p[i]);
        m.map[i] += a;
        sum += a;
      }
      m.strength[c] = hw ? sum / static_cast<double>(hw) : 0.0;
    }
    if (C > 0)
      for (double& v : m.map) v /= C;
  } else if (tv.shape.size() == 3) {
    m.layout = LayerMaps::Layout::Tokens;
    const int T = static_cast<int>(tv.shape[1]), D = static_cast<int>(tv.shape[2]);
    m.neurons = D;
    std::vector<double> tok(T, 0.0);
    m.strength.assign(D, 0.0);
    for (int t = 0; t < T; ++t) {
      double sum = 0;
      for (int d = 0; d < D; ++d) {
        const double a = std::fabs(x[static_cast<size_t>(t) * D + d]);
        sum += a;
        m.strength[d] += a;
      }
      tok[t] = D ? sum / D : 0.0;
    }
    if (T > 0)
      for (double& v : m.strength) v /= T;
    int side = square_side(T);
    int first = 0;
    if (!side && (side = square_side(T - 1))) {
      first = 1;
      m.skipped_cls = true;
    }
    if (side) {
      m.map_rows = m.map_cols = side;
    } else {
      m.map_rows = 1;
      m.map_cols = T;
    }
    m.neuron_rows = m.map_rows;
    m.neuron_cols = m.map_cols;
    m.map.assign(tok.begin() + first, tok.end());
  } else if (tv.shape.size() == 2) {
    m.layout = LayerMaps::Layout::Vector;
    m.neurons = static_cast<int>(x.size());
    m.strength.resize(x.size());
    for (size_t i = 0; i < x.size(); ++i) m.strength[i] = std::fabs(x[i]);
  } else {
    m.layout = LayerMaps::Layout::Other;
    m.neurons = static_cast<int>(x.size());
    m.strength.resize(x.size());
    for (size_t i = 0; i < x.size(); ++i) m.strength[i] = std::fabs(x[i]);
  }
  sort_order(m);
  return m;
}

const char* layout_label(LayerMaps::Layout layout) {
  switch (layout) {
    case LayerMaps::Layout::Conv: return "conv map";
    case LayerMaps::Layout::Tokens: return "tokens";
    case LayerMaps::Layout::Vector: return "vector";
    default: return "tensor";
  }
}

}  // namespace tvis::viewer
