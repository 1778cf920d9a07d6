#include "tvis/shell/gl_texture_uploader.h"

#include <SDL.h>

#include <cstdint>

#if defined(__EMSCRIPTEN__)
#include <SDL_opengles2.h>
#else
#include <SDL_opengl.h>
#endif

namespace tvis::shell {

namespace {

GLuint texture_of(ImTextureID id) { return static_cast<GLuint>(reinterpret_cast<intptr_t>(id)); }

// Uploads tightly packed RGBA8 rows into the bound texture.
void upload(int width, int height, const std::uint8_t* rgba, bool first) {
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  if (first)
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  else
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
}

}  // namespace

ImTextureID GlTextureUploader::create(int width, int height, const std::uint8_t* rgba) {
  ++changes_;
  if (width < 1 || height < 1 || width > widgets::kMaxTextureSide || height > widgets::kMaxTextureSide)
    return nullptr;
  GLint previous = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
  GLuint texture = 0;
  glGenTextures(1, &texture);
  if (texture == 0) return nullptr;
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  upload(width, height, rgba, true);
  const bool ok = glGetError() == GL_NO_ERROR;
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
  if (!ok) {
    glDeleteTextures(1, &texture);
    return nullptr;
  }
  return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture));
}

void GlTextureUploader::update(ImTextureID id, int width, int height, const std::uint8_t* rgba) {
  ++changes_;
  GLint previous = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
  glBindTexture(GL_TEXTURE_2D, texture_of(id));
  upload(width, height, rgba, false);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
}

void GlTextureUploader::destroy(ImTextureID id) {
  ++changes_;
  // The App may outlive the window; textures died with their context then.
  if (SDL_GL_GetCurrentContext() == nullptr) return;
  const GLuint texture = texture_of(id);
  glDeleteTextures(1, &texture);
}

}  // namespace tvis::shell
