// The texture path of pictures and Insights maps (panels/picture_textures.h)
// against the rectangle path it replaced: the same colour at every cell, one
// upload per key across frames, a new one for a new key, the opacity as the
// image's tint.
#include <catch2/catch.hpp>
#include <imgui.h>

#include <cstdint>
#include <random>
#include <vector>

#include "pages/insights_state.h"
#include "panels/picture.h"
#include "panels/picture_textures.h"
#include "tvis/widgets/colormap.h"

using namespace tvis::viewer;

namespace {

struct RecordingUploader : tvis::widgets::TextureUploader {
  struct Image {
    int w = 0, h = 0;
    std::vector<std::uint8_t> rgba;
  };
  std::vector<Image> made;
  int destroyed = 0;
  ImTextureID create(int w, int h, const std::uint8_t* rgba) override {
    made.push_back({w, h, std::vector<std::uint8_t>(rgba, rgba + static_cast<size_t>(w) * h * 4)});
    return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(made.size()));
  }
  void update(ImTextureID, int, int, const std::uint8_t*) override {}
  void destroy(ImTextureID) override { ++destroyed; }
};

struct Context {
  ImGuiContext* ctx = ImGui::CreateContext();
  Context() {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(800, 600);
    io.IniFilename = nullptr;
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  }
  ~Context() { ImGui::DestroyContext(ctx); }
  ImDrawList* begin() {
    ImGui::NewFrame();
    ImGui::Begin("t");
    return ImGui::GetWindowDrawList();
  }
  void end() {
    ImGui::End();
    ImGui::Render();
  }
};

// The filled rectangles (4 vertices each) added since vertex `from`.
struct DrawnRect {
  ImVec2 min, max;
  ImU32 col;
};
std::vector<DrawnRect> rects_since(ImDrawList* dl, int from) {
  std::vector<DrawnRect> out;
  for (int i = from; i + 3 < dl->VtxBuffer.Size; i += 4)
    out.push_back({dl->VtxBuffer[i].pos, dl->VtxBuffer[i + 2].pos, dl->VtxBuffer[i].col});
  return out;
}

ImU32 colour_at(const std::vector<DrawnRect>& rects, ImVec2 p) {
  for (const DrawnRect& r : rects)
    if (p.x >= r.min.x && p.x < r.max.x && p.y >= r.min.y && p.y < r.max.y) return r.col;
  return 0;
}

ImU32 texel(const RecordingUploader::Image& im, int x, int y) {
  const std::uint8_t* p = im.rgba.data() + (static_cast<size_t>(y) * im.w + x) * 4;
  return IM_COL32(p[0], p[1], p[2], p[3]);
}

}  // namespace

TEST_CASE("a picture as a texture shows the rectangles' colours, uploaded once per key", "[picture]") {
  Context c;
  RecordingUploader up;
  PictureTextures textures;
  const int h = 40, w = 30;  // blocks of 3 x 2 at max_side 16, partial ones at the edges
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  std::vector<double> v(static_cast<size_t>(3) * h * w);
  for (double& x : v) x = normal(rng);
  const PictureLayout pl = picture_layout({3, h, w});
  const ImVec2 p0(10, 10), p1(10 + 3 * w, 10 + 3 * h);

  ImDrawList* dl = c.begin();
  const int before = dl->VtxBuffer.Size;
  REQUIRE(draw_picture(dl, p0, p1, v.data(), v.size(), pl, false, 16));
  const std::vector<DrawnRect> rects = rects_since(dl, before);
  REQUIRE(rects.size() == static_cast<size_t>(14 * 15));
  REQUIRE(draw_picture(dl, p0, p1, v.data(), v.size(), pl, false, TextureTarget{&textures, &up, "tensor 5"}, 16));
  c.end();
  REQUIRE(up.made.size() == 1);
  const auto& im = up.made[0];
  REQUIRE((im.w == w && im.h == h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      REQUIRE(texel(im, x, y) == colour_at(rects, ImVec2(p0.x + 3 * x + 1.5f, p0.y + 3 * y + 1.5f)));

  dl = c.begin();
  draw_picture(dl, p0, p1, v.data(), v.size(), pl, false, TextureTarget{&textures, &up, "tensor 5"}, 16);
  CHECK(up.made.size() == 1);  // the same key: drawn from the texture made before
  draw_picture(dl, p0, p1, v.data(), v.size(), pl, false, TextureTarget{&textures, &up, "tensor 6"}, 16);
  CHECK(up.made.size() == 2);
  c.end();
  textures.clear();
  CHECK(up.destroyed == 2);
}

TEST_CASE("a Grad-CAM map as a texture: the cells' colours, the opacity as its tint", "[picture]") {
  Context c;
  RecordingUploader up;
  PictureTextures textures;
  const int rows = 7, cols = 5;
  std::vector<double> map(static_cast<size_t>(rows) * cols);
  for (size_t i = 0; i < map.size(); ++i) map[i] = static_cast<double>((i * 37) % 11);
  const ImVec2 p0(5, 5), p1(5 + 10 * cols, 5 + 10 * rows);
  ImDrawList* dl = c.begin();
  const int before = dl->VtxBuffer.Size;
  draw_map_over(dl, p0, p1, map, rows, cols, 0.4f, 1);
  const std::vector<DrawnRect> rects = rects_since(dl, before);
  REQUIRE(rects.size() == map.size());
  const int at = dl->VtxBuffer.Size;
  draw_map_over(dl, p0, p1, map, rows, cols, 0.4f, 1, TextureTarget{&textures, &up, "map 9"});
  REQUIRE(dl->VtxBuffer.Size == at + 4);  // one quad
  const ImU32 tint = dl->VtxBuffer[at].col;
  c.end();
  REQUIRE(up.made.size() == 1);
  for (int r = 0; r < rows; ++r)
    for (int col = 0; col < cols; ++col) {
      const ImU32 rect = colour_at(rects, ImVec2(p0.x + 10 * col + 5, p0.y + 10 * r + 5));
      CHECK((texel(up.made[0], col, r) & 0x00FFFFFF) == (rect & 0x00FFFFFF));
      CHECK((texel(up.made[0], col, r) >> IM_COL32_A_SHIFT) == 255);
      CHECK((tint >> IM_COL32_A_SHIFT) == (rect >> IM_COL32_A_SHIFT));  // the rectangles' alpha
    }
  CHECK((tint & 0x00FFFFFF) == 0x00FFFFFF);
}
