#include "picture.h"

#include <algorithm>
#include <cmath>

namespace tvis::viewer {

PictureLayout picture_layout(const std::vector<int64_t>& shape) {
  PictureLayout p;
  auto dim = [&](size_t i) { return static_cast<int>(shape[i]); };
  if (shape.size() == 2 && shape[0] > 0 && shape[1] > 0) {
    p = {true, dim(0), dim(1), 1, false};
  } else if (shape.size() == 3 && (shape[0] == 1 || shape[0] == 3) && shape[1] > 1 && shape[2] > 1) {
    p = {true, dim(1), dim(2), dim(0), false};
  } else if (shape.size() == 3 && (shape[2] == 1 || shape[2] == 3 || shape[2] == 4) && shape[0] > 1 && shape[1] > 1) {
    p = {true, dim(0), dim(1), dim(2), true};
  }
  return p;
}

ImVec2 fit_picture(float w, float h, ImVec2 avail) {
  if (w <= 0 || h <= 0 || avail.x <= 0 || avail.y <= 0) return ImVec2(0, 0);
  const float k = std::min(avail.x / w, avail.y / h);
  return ImVec2(w * k, h * k);
}

bool draw_picture(ImDrawList* dl, ImVec2 min, ImVec2 max, const double* v, size_t count, const PictureLayout& p,
                  bool integer_bytes, int max_side) {
  if (!p.ok) return false;
  const size_t plane = static_cast<size_t>(p.height) * p.width;
  if (count < plane * p.channels) return false;
  const int color_channels = std::min(p.channels, 3);
  auto at = [&](int c, int y, int x) {
    return p.channels_last ? v[(static_cast<size_t>(y) * p.width + x) * p.channels + c]
                           : v[plane * c + static_cast<size_t>(y) * p.width + x];
  };
  double lo = 0, hi = 255;
  if (!integer_bytes) {
    lo = INFINITY;
    hi = -INFINITY;
    for (size_t i = 0; i < plane * color_channels; ++i)
      if (std::isfinite(v[i])) {
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
      }
    if (!(hi > lo)) {
      lo = 0;
      hi = 1;
    } else if (lo >= 0 && hi <= 1) {
      lo = 0;
      hi = 1;
    }
  }
  const int by = std::max(1, (p.height + max_side - 1) / max_side);
  const int bx = std::max(1, (p.width + max_side - 1) / max_side);
  const float cw = (max.x - min.x) / p.width, ch = (max.y - min.y) / p.height;
  for (int y0 = 0; y0 < p.height; y0 += by)
    for (int x0 = 0; x0 < p.width; x0 += bx) {
      double rgb[3] = {0, 0, 0};
      const int y1 = std::min(p.height, y0 + by), x1 = std::min(p.width, x0 + bx);
      const int n = (y1 - y0) * (x1 - x0);
      for (int c = 0; c < color_channels; ++c) {
        double sum = 0;
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x) sum += at(c, y, x);
        rgb[c] = std::clamp((sum / n - lo) / (hi - lo), 0.0, 1.0);
      }
      if (color_channels == 1) rgb[1] = rgb[2] = rgb[0];
      const ImU32 col = IM_COL32(static_cast<int>(rgb[0] * 255), static_cast<int>(rgb[1] * 255),
                                 static_cast<int>(rgb[2] * 255), 255);
      dl->AddRectFilled(ImVec2(min.x + x0 * cw, min.y + y0 * ch), ImVec2(min.x + x1 * cw, min.y + y1 * ch), col);
    }
  return true;
}

}  // namespace tvis::viewer
