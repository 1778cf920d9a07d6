// gl_texture_uploader.h: widgets::TextureUploader over OpenGL 3 / WebGL2, the
// GPU side of the viewer's heatmaps. Shared by tvis-view and the browser shell
// (like sdl_shell.cpp). Must only be used while the shell's GL context is
// current (the App calls it during frames only).
#pragma once

#include "tvis/widgets/texture_uploader.h"

namespace tvis::shell {

/// RGBA8 textures, NEAREST filtering, clamped to edge (texture_uploader.h).
class GlTextureUploader final : public widgets::TextureUploader {
 public:
  ImTextureID create(int width, int height, const std::uint8_t* rgba) override;
  void update(ImTextureID id, int width, int height, const std::uint8_t* rgba) override;
  void destroy(ImTextureID id) override;
};

}  // namespace tvis::shell
