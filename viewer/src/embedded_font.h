// embedded_font.h: the UI font's TrueType bytes, generated at build time from
// Debian's fonts-dejavu-core (cmake/embed_file.cmake); never committed.
#pragma once

#include <cstddef>

namespace tvis::viewer {
extern const unsigned char kEmbeddedFont[];
extern const size_t kEmbeddedFontSize;
}  // namespace tvis::viewer
