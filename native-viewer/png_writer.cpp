#include "png_writer.h"

#include <png.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tvis::shell {

std::string write_png_rgba(const std::string& path, const uint8_t* rgba, int width, int height) {
  if (width <= 0 || height <= 0) return "empty image";
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_RGBA;
  if (!png_image_write_to_file(&image, path.c_str(), 0, rgba, 0, nullptr)) {
    std::string why = image.message[0] ? image.message : std::strerror(errno);
    png_image_free(&image);
    return "cannot write " + path + ": " + why;
  }
  return {};
}

}  // namespace tvis::shell
