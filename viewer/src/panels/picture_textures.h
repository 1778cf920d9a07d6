// picture_textures.h: pictures and value grids drawn as one texture each
// instead of one filled rectangle per block (picture.h, the Insights maps,
// the layer view's On image map), so a frame draws a quad per picture.
//
// A PictureTextures is a caller-owned set of textures, each named by a key
// that says what it shows (the run, the tensor id and row, the block size:
// whatever changes the texels). get() uploads a texture once, when its key
// is new; later frames reuse it. The set keeps at most `capacity` textures
// not used in the current frame (least recently used go first) and destroys
// them through the uploader that made them, at the latest when it is
// destroyed (so its owner must go before the shell's uploader).
//
// Without an uploader (headless tests), get() returns nullptr and callers
// draw rectangles as before: the two paths show the same colours.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tvis/widgets/texture_uploader.h"

namespace tvis::viewer {

class PictureTextures {
public:
  /// Writes a width x height RGBA8 image (texture_uploader.h's layout);
  /// false: nothing to show.
  using Fill = std::function<bool(std::vector<std::uint8_t>* rgba, int* width, int* height)>;

  explicit PictureTextures(size_t capacity = 96) : capacity_(capacity) {}
  PictureTextures(const PictureTextures&) = delete;
  PictureTextures& operator=(const PictureTextures&) = delete;
  ~PictureTextures() { clear(); }

  /// The texture named `key`, made by `fill` when the key is new. nullptr
  /// when `uploader` is null, fill fails, the image is empty or has a side
  /// over widgets::kMaxTextureSide, or create fails (not retried for the key).
  ImTextureID get(widgets::TextureUploader* uploader, const std::string& key, const Fill& fill);
  /// Destroys every texture.
  void clear();
  size_t size() const { return entries_.size(); }
  std::uint64_t uploads() const { return uploads_; }

private:
  struct Entry {
    ImTextureID id = nullptr;
    int last_frame = 0;
  };
  void evict(int frame);
  size_t capacity_;
  widgets::TextureUploader* uploader_ = nullptr;  // the one every texture was made by
  std::map<std::string, Entry> entries_;
  std::uint64_t uploads_ = 0;
};

/// Where a picture or grid may be drawn as a texture: a set, the uploader
/// and the key naming what it shows. Empty (the default): rectangles.
struct TextureTarget {
  PictureTextures* textures = nullptr;
  widgets::TextureUploader* uploader = nullptr;
  std::string key;
};

/// Fills the texels [x0, x1) x [y0, y1) of a width-wide RGBA8 image with `color`.
void fill_texels(std::vector<std::uint8_t>* rgba, int width, int x0, int y0, int x1, int y1, ImU32 color);

}  // namespace tvis::viewer
