// A parameter's kept values as the image the Weights page draws, and its
// block-reduced thumbnail.
#include <algorithm>

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

int64_t shown_tensor(const schema::ParamRecord& p, WeightShow show) {
  switch (show) {
    case WeightShow::Weight: return static_cast<int64_t>(p.weight());
    case WeightShow::Grad: return p.grad();
    case WeightShow::Update: return p.update();
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

}  // namespace tvis::viewer
