// insights_data.cpp: what the insight sub-pages read: tensor values by id
// and the followed sample's picture (both the model's: one bounded cache of
// decoded values for every page), the sample they show, and the
// map-over-picture drawing they share.
#include <imgui.h>

#include <algorithm>
#include <climits>

#include "../panels/picture.h"
#include "../theme.h"
#include "insights_state.h"
#include "tvis/viewer_model/followed_sample.h"
#include "tvis/widgets/colormap.h"

namespace tvis::viewer {

std::shared_ptr<const DecodedTensor> decoded_tensor(AppState& s, uint64_t id, int step) {
  return s.model.values().get(id, step);
}

std::shared_ptr<const DecodedTensor> sample_picture(AppState& s, int step, int sample) {
  if (sample < 0) return nullptr;
  const SampleAtStep at = sample_at_step(s.model, step, sample);
  if (!at.picture) return nullptr;
  std::shared_ptr<const DecodedTensor> d = s.model.values().get(*at.picture, step);
  if (!d->ok() || !picture_layout(d->values.shape).ok) return nullptr;
  return d;
}

int insight_sample(AppState& s, InsightsState& st, const std::vector<int>& have) {
  const int followed = s.followed_sample();
  if (followed >= 0) return followed;
  if (have.empty()) return st.sample;
  if (std::find(have.begin(), have.end(), st.sample) == have.end()) st.sample = have.front();
  return st.sample;
}

void draw_map_over(ImDrawList* dl, ImVec2 min, ImVec2 max, const std::vector<double>& map, int rows, int cols,
                   float opacity, int colormap, const TextureTarget& target) {
  if (rows <= 0 || cols <= 0 || map.size() < static_cast<size_t>(rows) * cols) return;
  double hi = 0;
  for (double v : map) hi = std::max(hi, v);
  const widgets::ColorRange range{0, hi > 0 ? hi : 1};
  const auto cmap = colormap == 1 ? widgets::Colormap::Diverging : widgets::Colormap::Sequential;
  const ImU32 alpha = static_cast<ImU32>(std::clamp(opacity, 0.0f, 1.0f) * 255) << 24;
  auto color = [&](int r, int c) {
    return widgets::colormap_color(cmap, range, map[static_cast<size_t>(r) * cols + c]) & 0x00FFFFFF;
  };
  if (target.textures && target.uploader) {
    const std::string key = target.key + "|map|" + std::to_string(colormap);
    ImTextureID id = target.textures->get(target.uploader, key, [&](std::vector<std::uint8_t>* rgba, int* w, int* h) {
      *w = cols;
      *h = rows;
      rgba->assign(static_cast<size_t>(rows) * cols * 4, 0);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) fill_texels(rgba, cols, c, r, c + 1, r + 1, color(r, c) | 0xFF000000u);
      return true;
    });
    if (id) {
      dl->AddImage(id, min, max, ImVec2(0, 0), ImVec2(1, 1), 0x00FFFFFF | alpha);  // the tint sets the opacity
      return;
    }
  }
  const float cw = (max.x - min.x) / cols, ch = (max.y - min.y) / rows;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      dl->AddRectFilled(ImVec2(min.x + c * cw, min.y + r * ch), ImVec2(min.x + (c + 1) * cw, min.y + (r + 1) * ch),
                        color(r, c) | alpha);
}

TextureTarget texture_target(AppState& s, InsightsState& st, const std::string& key) {
  return TextureTarget{&st.textures, s.options.texture_uploader, key};
}

void insight_hint(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kMuted));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

}  // namespace tvis::viewer
