// web_dir.h: where `tvis open` finds the browser viewer (viewer.html,
// viewer.js, viewer.wasm), wherever tvis was built or installed.
#pragma once

#include <string>
#include <vector>

namespace tvis::cli {

/// The folders searched, in order: $TVIS_WEB_DIR; beside the executable's
/// folder (<bin>/../web: the build tree, build/bin + build/web); the install
/// prefix (<bin>/../share/tvis/web); the Python package (<bin>/../tvis/web,
/// <bin>/web); the folder this tvis was configured with (TVIS_WEB_DIR_DEFAULT).
std::vector<std::string> web_dir_candidates();

/// The first candidate holding viewer.html, viewer.js and viewer.wasm; ""
/// with `error` naming every folder looked in.
std::string find_web_dir(std::string* error);

}  // namespace tvis::cli
