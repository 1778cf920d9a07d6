// The layer panel's grids: block means drawn over a picture or alone
// (layer_parts.h).
#include <algorithm>

#include "layer_parts.h"
#include "tvis/viewer_model/block_means.h"
#include "tvis/widgets/colormap.h"

namespace tvis::viewer {

std::pair<int, int> draw_grid(ImDrawList* dl, ImVec2 min, ImVec2 max, int rows, int cols,
                              const std::function<double(int, int)>& at, double hi, float alpha, int max_blocks,
                              const TextureTarget& target) {
  if (rows <= 0 || cols <= 0) return {-1, -1};
  const float cw = (max.x - min.x) / cols, ch = (max.y - min.y) / rows;
  const widgets::ColorRange range{0, hi > 0 ? hi : 1};
  // Calls block(r0, c0, r1, c1, colour) for each block, opaque.
  auto blocks = [&](const std::function<void(int, int, int, int, ImU32)>& block) {
    const BlockMeans b = block_means(rows, cols, max_blocks, at);
    for (int r = 0; r < b.rows; ++r)
      for (int c = 0; c < b.cols; ++c) {
        const int r0 = b.r0(r), c0 = b.c0(c);
        const ImU32 col = widgets::colormap_color(widgets::Colormap::Sequential, range, b.means[static_cast<size_t>(r) * b.cols + c]);
        block(r0, c0, std::min(rows, r0 + b.block_rows), std::min(cols, c0 + b.block_cols), col | 0xFF000000u);
      }
  };
  ImTextureID id = nullptr;
  if (target.textures && target.uploader)
    id = target.textures->get(target.uploader, target.key + "|grid|" + std::to_string(max_blocks),
                              [&](std::vector<std::uint8_t>* rgba, int* w, int* h) {
                                *w = cols;
                                *h = rows;
                                rgba->assign(static_cast<size_t>(rows) * cols * 4, 0);
                                blocks([&](int r0, int c0, int r1, int c1, ImU32 col) { fill_texels(rgba, cols, c0, r0, c1, r1, col); });
                                return true;
                              });
  const ImU32 a = static_cast<ImU32>(alpha * 255) << 24;
  if (id)
    dl->AddImage(id, min, max, ImVec2(0, 0), ImVec2(1, 1), 0x00FFFFFF | a);  // the tint sets the opacity
  else
    blocks([&](int r0, int c0, int r1, int c1, ImU32 col) {
      dl->AddRectFilled(ImVec2(min.x + c0 * cw, min.y + r0 * ch), ImVec2(min.x + c1 * cw, min.y + r1 * ch), (col & 0x00FFFFFF) | a);
    });
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (m.x < min.x || m.y < min.y || m.x >= max.x || m.y >= max.y) return {-1, -1};
  return {std::clamp(static_cast<int>((m.y - min.y) / ch), 0, rows - 1),
          std::clamp(static_cast<int>((m.x - min.x) / cw), 0, cols - 1)};
}

void say(const std::string& text, unsigned color) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(color));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

}  // namespace tvis::viewer
