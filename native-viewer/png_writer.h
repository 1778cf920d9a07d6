// png_writer.h: writes RGBA pixels as a PNG file (libpng).
#pragma once

#include <cstdint>
#include <string>

namespace tvis::shell {

/// Writes `width` x `height` RGBA8 pixels, rows top to bottom, to `path`.
/// Returns "" on success, else one line naming the problem.
std::string write_png_rgba(const std::string& path, const uint8_t* rgba, int width, int height);

}  // namespace tvis::shell
