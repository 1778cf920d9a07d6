// texture_uploader.h: how widgets get GPU textures without seeing GL.
//
// Each shell (native SDL2 + OpenGL3, wasm WebGL2) implements TextureUploader;
// the widget layer only holds the returned ImTextureID and draws it with
// ImDrawList::AddImage. Headless tests use a fake (or none: heatmaps then
// fall back to filled rectangles).
//
// Usage (shell side, OpenGL):
//   struct GlUploader : tvis::widgets::TextureUploader {
//     ImTextureID create(int w, int h, const std::uint8_t* rgba) override {
//       GLuint t; glGenTextures(1, &t); ... glTexImage2D(..., rgba);
//       return (ImTextureID)(intptr_t)t; }
//     ...
//   };
// Usage (page side): keep one HeatmapTexture per shown heatmap, pass both to
// heatmap() through HeatmapOptions.
//
// Contracts for implementations:
// - Pixels are RGBA8, rows top to bottom, tightly packed (w * 4 bytes a row),
//   straight (not premultiplied) alpha. 1 <= w, h <= kMaxTextureSide.
// - Sample with NEAREST filtering (cells must stay crisp) and clamp to edge.
// - create returns nullptr (0) on failure; the widget then draws rectangles.
// - update is only called with the w and h the texture was created with.
// - destroy is called exactly once per id that create returned.
// - All calls happen on the UI thread, between NewFrame and the render of the
//   frame's draw data, and the pixels pointer is only valid during the call.
#pragma once

#include <cstdint>

#include "imgui.h"

namespace tvis::widgets {

constexpr int kMaxTextureSide = 4096;  // WebGL2 guarantees at least this

class TextureUploader {
public:
    virtual ~TextureUploader() = default;
    virtual ImTextureID create(int width, int height, const std::uint8_t* rgba) = 0;
    virtual void update(ImTextureID id, int width, int height, const std::uint8_t* rgba) = 0;
    virtual void destroy(ImTextureID id) = 0;
};

}  // namespace tvis::widgets
