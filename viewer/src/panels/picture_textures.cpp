#include "picture_textures.h"

namespace tvis::viewer {

ImTextureID PictureTextures::get(widgets::TextureUploader* uploader, const std::string& key, const Fill& fill) {
  if (!uploader) return nullptr;
  if (uploader != uploader_) {
    clear();
    uploader_ = uploader;
  }
  const int frame = ImGui::GetFrameCount();
  if (auto it = entries_.find(key); it != entries_.end()) {
    it->second.last_frame = frame;
    return it->second.id;
  }
  evict(frame);
  std::vector<std::uint8_t> rgba;
  int w = 0, h = 0;
  ImTextureID id = nullptr;
  if (fill(&rgba, &w, &h) && w >= 1 && h >= 1 && w <= widgets::kMaxTextureSide && h <= widgets::kMaxTextureSide &&
      rgba.size() >= static_cast<size_t>(w) * h * 4) {
    id = uploader->create(w, h, rgba.data());
    ++uploads_;
  }
  entries_[key] = Entry{id, frame};
  return id;
}

void PictureTextures::evict(int frame) {
  while (entries_.size() >= capacity_) {
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->second.last_frame < frame && (oldest == entries_.end() || it->second.last_frame < oldest->second.last_frame))
        oldest = it;
    if (oldest == entries_.end()) return;  // all used this frame: grow until a later frame
    if (oldest->second.id) uploader_->destroy(oldest->second.id);
    entries_.erase(oldest);
  }
}

void PictureTextures::clear() {
  for (auto& [key, e] : entries_)
    if (e.id && uploader_) uploader_->destroy(e.id);
  entries_.clear();
}

void fill_texels(std::vector<std::uint8_t>* rgba, int width, int x0, int y0, int x1, int y1, ImU32 color) {
  const std::uint8_t px[4] = {static_cast<std::uint8_t>(color >> IM_COL32_R_SHIFT),
                              static_cast<std::uint8_t>(color >> IM_COL32_G_SHIFT),
                              static_cast<std::uint8_t>(color >> IM_COL32_B_SHIFT),
                              static_cast<std::uint8_t>(color >> IM_COL32_A_SHIFT)};
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      std::uint8_t* p = rgba->data() + (static_cast<size_t>(y) * width + x) * 4;
      p[0] = px[0], p[1] = px[1], p[2] = px[2], p[3] = px[3];
    }
}

}  // namespace tvis::viewer
