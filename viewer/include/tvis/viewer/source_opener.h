// source_opener.h: a shell's handler for a call's source link (the
// Inspector's "called from" / "defined at" on the Explore page). The viewer
// shows the file in its own Source tab, then calls the handler, when one is
// set, with the file as the run names it (SourceFile.display_path: relative
// to the recorded project folder where the file lies under it, else its
// absolute path on the recording host) and the 1-based line. The browser
// build hands it to the page (window.tvisViewer.onSourceLink), which the VS
// Code panel forwards to the editor. Set once by the shell before the App
// runs; empty (tvis-view, tvis open's page): nothing more happens.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace tvis::viewer {

using SourceOpener = std::function<void(const std::string& file, uint32_t line)>;

/// The process's handler (one viewer per process: a page or a window).
inline SourceOpener& source_opener() {
  static SourceOpener opener;
  return opener;
}

}  // namespace tvis::viewer
