// gl_texture_uploader.h: widgets::TextureUploader over OpenGL 3 / WebGL2, the
// GPU side of the viewer's heatmaps. Shared by tvis-view and the browser shell
// (like sdl_shell.cpp). Must only be used while the shell's GL context is
// current (the App calls it during frames only).
#pragma once

#include <cstdint>

#include "tvis/widgets/texture_uploader.h"

namespace tvis::shell {

/// RGBA8 textures, NEAREST filtering, clamped to edge (texture_uploader.h).
class GlTextureUploader final : public widgets::TextureUploader {
 public:
  ImTextureID create(int width, int height, const std::uint8_t* rgba) override;
  void update(ImTextureID id, int width, int height, const std::uint8_t* rgba) override;
  void destroy(ImTextureID id) override;
  /// How many textures were created, updated or destroyed so far (a frame
  /// whose draw lists are unchanged still differs when this moved).
  uint64_t changes() const { return changes_; }

 private:
  uint64_t changes_ = 0;
};

}  // namespace tvis::shell
