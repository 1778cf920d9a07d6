#include "picture.h"

#include <algorithm>
#include <cmath>
#include <string>

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

namespace {

// Calls block(x0, y0, x1, y1, colour) for each block of the picture as
// draw_picture shows it (blocks of cells merged to at most max_side a side,
// the block's mean colour). False when the values are too short.
template <typename Block>
bool picture_blocks(const double* v, size_t count, const PictureLayout& p, bool integer_bytes, int max_side,
                    Block&& block) {
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
      block(x0, y0, x1, y1,
            IM_COL32(static_cast<int>(rgb[0] * 255), static_cast<int>(rgb[1] * 255), static_cast<int>(rgb[2] * 255), 255));
    }
  return true;
}

}  // namespace

bool draw_picture(ImDrawList* dl, ImVec2 min, ImVec2 max, const double* v, size_t count, const PictureLayout& p,
                  bool integer_bytes, int max_side) {
  if (!p.ok) return false;
  const float cw = (max.x - min.x) / p.width, ch = (max.y - min.y) / p.height;
  return picture_blocks(v, count, p, integer_bytes, max_side, [&](int x0, int y0, int x1, int y1, ImU32 col) {
    dl->AddRectFilled(ImVec2(min.x + x0 * cw, min.y + y0 * ch), ImVec2(min.x + x1 * cw, min.y + y1 * ch), col);
  });
}

bool draw_picture(ImDrawList* dl, ImVec2 min, ImVec2 max, const double* v, size_t count, const PictureLayout& p,
                  bool integer_bytes, const TextureTarget& target, int max_side) {
  if (!p.ok) return false;
  if (target.textures && target.uploader) {
    const std::string key = target.key + "|picture|" + std::to_string(max_side) + (integer_bytes ? "b" : "f");
    ImTextureID id = target.textures->get(target.uploader, key, [&](std::vector<std::uint8_t>* rgba, int* w, int* h) {
      *w = p.width;
      *h = p.height;
      rgba->assign(static_cast<size_t>(p.width) * p.height * 4, 0);
      return picture_blocks(v, count, p, integer_bytes, max_side, [&](int x0, int y0, int x1, int y1, ImU32 col) {
        fill_texels(rgba, p.width, x0, y0, x1, y1, col);
      });
    });
    if (id) {
      dl->AddImage(id, min, max);
      return true;
    }
  }
  return draw_picture(dl, min, max, v, count, p, integer_bytes, max_side);
}

}  // namespace tvis::viewer
