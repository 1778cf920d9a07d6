// A parameter's kept values as the image the Weights page draws, and its
// block-reduced thumbnail.
#include <algorithm>
#include <cmath>

#include "tvis/widgets/heatmap.h"
#include "weights_state.h"

namespace tvis::viewer {

const char* show_name(WeightShow show) {
  switch (show) {
    case WeightShow::Weight: return "weight";
    case WeightShow::Grad: return "grad";
    case WeightShow::Update: return "update";
  }
  return "weight";
}

int64_t shown_tensor(const ParamTensors& p, WeightShow show) {
  switch (show) {
    case WeightShow::Weight: return p.weight;
    case WeightShow::Grad: return p.grad;
    case WeightShow::Update: return p.update;
  }
  return -1;
}

WeightImage weight_image(const TensorValues& tv) {
  WeightImage img;
  const auto& sh = tv.shape;
  const size_t n = tv.values.size();
  auto plain = [&](int64_t rows, int64_t cols) {
    if (rows <= 0 || cols <= 0 || static_cast<size_t>(rows * cols) > n || rows > INT32_MAX || cols > INT32_MAX) return;
    img.rows = static_cast<int>(rows);
    img.cols = static_cast<int>(cols);
    img.values.assign(tv.values.begin(), tv.values.begin() + rows * cols);
  };
  if (sh.empty()) {
    plain(1, static_cast<int64_t>(std::min<size_t>(n, 1)));
  } else if (sh.size() == 1) {
    img.vector = true;
    plain(1, sh[0]);
  } else if (sh.size() == 4 && sh[2] * sh[3] > 1) {
    // [O, I, kh, kw] -> (o*kh + i, c*kw + j)
    const int64_t o = sh[0], c = sh[1], kh = sh[2], kw = sh[3];
    if (o <= 0 || c <= 0 || kh <= 0 || kw <= 0 || static_cast<size_t>(o * c * kh * kw) > n) return img;
    if (o * kh > INT32_MAX || c * kw > INT32_MAX) return img;
    img.rows = static_cast<int>(o * kh);
    img.cols = static_cast<int>(c * kw);
    img.tile_rows = static_cast<int>(kh);
    img.tile_cols = static_cast<int>(kw);
    img.values.resize(static_cast<size_t>(img.rows) * static_cast<size_t>(img.cols));
    for (int64_t f = 0; f < o; ++f)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j)
            img.values[static_cast<size_t>((f * kh + i) * img.cols + ch * kw + j)] =
                tv.values[static_cast<size_t>(((f * c + ch) * kh + i) * kw + j)];
  } else {
    int64_t rest = 1;
    for (size_t d = 1; d < sh.size(); ++d) rest *= sh[d];
    plain(sh[0], rest);
  }
  return img;
}

WeightImage reduce_image(const WeightImage& full, int side) {
  if (full.rows <= side && full.cols <= side) return full;
  WeightImage out;
  out.vector = full.vector;
  const int br = (full.rows + side - 1) / side, bc = (full.cols + side - 1) / side;
  out.rows = (full.rows + br - 1) / br;
  out.cols = (full.cols + bc - 1) / bc;
  out.values.resize(static_cast<size_t>(out.rows) * static_cast<size_t>(out.cols));
  const widgets::ValueSpan span(full.values);
  for (int r = 0; r < out.rows; ++r)
    for (int c = 0; c < out.cols; ++c)
      out.values[static_cast<size_t>(r) * static_cast<size_t>(out.cols) + static_cast<size_t>(c)] =
          widgets::heatmap_block_value(span, full.cols, r * br, std::min(full.rows, r * br + br), c * bc,
                                       std::min(full.cols, c * bc + bc), {});
  return out;
}

namespace {

// The layout weight_image() gives `tv`: rows, cols and where image cell
// (r, c) lives in tv.values. False when there is nothing to draw.
struct Layout {
  int64_t rows = 0, cols = 0;
  int64_t kh = 0, kw = 0, channels = 0;  // conv: tiles of kh x kw per (filter, channel)
  size_t index(int64_t r, int64_t c) const {
    if (kh == 0) return static_cast<size_t>(r * cols + c);
    const int64_t f = r / kh, i = r % kh, ch = c / kw, j = c % kw;
    return static_cast<size_t>(((f * channels + ch) * kh + i) * kw + j);
  }
};

bool layout_of(const TensorValues& tv, Layout* l) {
  const auto& sh = tv.shape;
  const int64_t n = static_cast<int64_t>(tv.values.size());
  if (sh.empty()) {
    l->rows = 1;
    l->cols = std::min<int64_t>(n, 1);
  } else if (sh.size() == 1) {
    l->rows = 1;
    l->cols = sh[0];
  } else if (sh.size() == 4 && sh[2] * sh[3] > 1) {
    l->rows = sh[0] * sh[2];
    l->cols = sh[1] * sh[3];
    l->kh = sh[2];
    l->kw = sh[3];
    l->channels = sh[1];
  } else {
    int64_t rest = 1;
    for (size_t d = 1; d < sh.size(); ++d) rest *= sh[d];
    l->rows = sh[0];
    l->cols = rest;
  }
  return l->rows > 0 && l->cols > 0 && l->rows * l->cols <= n && l->rows <= INT32_MAX && l->cols <= INT32_MAX;
}

}  // namespace

WeightImage thumbnail_image(const TensorValues& tv, int side) {
  Layout l;
  if (!layout_of(tv, &l)) return {};
  if (l.rows * l.cols <= static_cast<int64_t>(side) * side * kThumbSamples) return reduce_image(weight_image(tv), side);
  WeightImage out;
  out.vector = tv.shape.size() == 1;
  const int64_t br = (l.rows + side - 1) / side, bc = (l.cols + side - 1) / side;
  out.rows = static_cast<int>((l.rows + br - 1) / br);
  out.cols = static_cast<int>((l.cols + bc - 1) / bc);
  out.values.resize(static_cast<size_t>(out.rows) * static_cast<size_t>(out.cols));
  // kThumbSamples points of each block on a regular grid; the one farthest
  // from their mean is the block's value (as heatmaps reduce, on a sample).
  const int sr = std::max(1, static_cast<int>(std::sqrt(static_cast<double>(kThumbSamples)))), sc = kThumbSamples / sr;
  std::vector<double> picked;
  for (int R = 0; R < out.rows; ++R)
    for (int C = 0; C < out.cols; ++C) {
      const int64_t r0 = R * br, r1 = std::min(l.rows, r0 + br), c0 = C * bc, c1 = std::min(l.cols, c0 + bc);
      picked.clear();
      double sum = 0;
      for (int a = 0; a < sr; ++a)
        for (int b = 0; b < sc; ++b) {
          const int64_t r = r0 + (r1 - r0) * (2 * a + 1) / (2 * sr), c = c0 + (c1 - c0) * (2 * b + 1) / (2 * sc);
          const double v = tv.values[l.index(r, c)];
          picked.push_back(v);
          sum += v;
        }
      const double mean = sum / static_cast<double>(picked.size());
      double best = picked[0];
      for (double v : picked)
        if (std::isnan(v) || std::fabs(v - mean) > std::fabs(best - mean)) best = v;
      out.values[static_cast<size_t>(R) * static_cast<size_t>(out.cols) + static_cast<size_t>(C)] = best;
    }
  return out;
}

}  // namespace tvis::viewer
