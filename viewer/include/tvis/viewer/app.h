// app.h: the tvis viewer application, shared by the browser and native shells.
//
// The App is pure Dear ImGui over the format's read half: it never touches
// SDL, OpenGL, emscripten or the file system. A shell owns the window and the
// ImGui context; each frame it calls, in order:
//
//     shell: backend NewFrame(), ImGui::NewFrame()
//     app.frame()                      // builds every window of the frame
//     shell: ImGui::Render(), draw, swap
//     app.record_frame_ms(ms)          // measured cost of that whole frame
//
// Opening runs. Every run arrives as a ByteSource (format/byte_source.h):
// a local file, a dropped browser File, an HTTP Range source. open() returns
// at once; the run shows when the source answers (a later frame for
// asynchronous sources). A failed open, a corrupt chunk or a source the shell
// could not create (unreachable URL) is shown in a readable error panel and
// listed in state()["errors"]; nothing throws, nothing waits on I/O.
//
// Test surface (docs/viewer_test_surface.md). state_json() is one JSON object
//   { run, runs, page, pages, insights, selection, view, errors, frame_ms }
// built from what each registered page reports (`view`: the shown page's),
// and command() is the one entry for the actions tests drive (select, page,
// panel, key, row geometry). The methods below command() are conveniences
// over the same two.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tvis/format/byte_source.h"
#include "tvis/format/error.h"
#include "tvis/viewer_model/rank_set.h"

namespace tvis::widgets {
class TextureUploader;  // tvis/widgets/texture_uploader.h
}

namespace tvis::viewer {

/// One run of a runs folder, as a shell found it. `open` creates its source
/// on demand (the run list reads only each run's metadata).
struct RunListEntry {
  std::string name;  // the run folder's name
  std::function<format::Result<std::shared_ptr<format::ByteSource>>()> open;
  /// A distributed run: every rank's file, rank 0's being `open`'s (empty:
  /// a run of one file). Picking the run opens it with its rank picker.
  std::vector<RankSource> ranks;
};

struct AppOptions {
  uint64_t cache_budget_bytes = 256ull << 20;  // decoded chunks kept (LRU beyond it)
  /// Raw bytes of chunks one frame may start reading (and, from a synchronous
  /// source, decode): opening a step of 10^5 calls spreads over frames.
  uint64_t frame_decode_bytes = 1ull << 20;
  /// Shell-owned GPU texture maker for heatmaps (outlives the App); null:
  /// heatmaps are drawn as rectangles of at most ~128 x 128 blocks.
  widgets::TextureUploader* texture_uploader = nullptr;
  /// Native shells: chunks are read and decoded on a worker thread
  /// (ChunkCache::use_decode_worker), so a frame shows "loading" instead of
  /// decoding; ignored in the browser (its reads are asynchronous already).
  bool decode_in_background = false;
  /// A live run (a run still being written) is rechecked for new chunks
  /// this often, in seconds, until it is complete (viewer/src/live_run.h).
  double live_recheck_seconds = 1.0;
  /// The browser: goes to `url`, a path of the server that served the page
  /// (the Graph page's "Change inputs" opens `tvis graph --setup`'s form).
  /// Null (tvis-view): nothing is offered that needs it.
  std::function<void(const std::string& url)> open_url;
  /// Native shells: rechecks the files a profile capture depended on, for
  /// the Graph page's freshness (docs/profiles.md "Freshness"). Given the
  /// capture's evidence as a JSON array of {role, path, name, present,
  /// resolved, size, mtime_ns, inode, xxh64}, returns {"checked": bool,
  /// "stale": bool, "reasons": [str]} as JSON. The page calls it when the
  /// capture arrives and each time the page is shown again. An answer that
  /// is not a JSON object (the browser's "null": it asks its server and the
  /// answer arrives later as a {"freshness": {...}} command) or no function
  /// at all leaves what the page has: what such a command told it, else
  /// "not checked".
  std::function<std::string(const std::string& evidence_json)> recheck_files;
};

class App {
 public:
  explicit App(AppOptions options = {});
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // --- fonts and scale (call before the first frame and when they change) ---
  /// Sets the style (dark theme) and builds the font atlas for `ui_scale`
  /// (DPI / 96, 1 on ordinary screens) and `framebuffer_scale` (framebuffer
  /// pixels per window unit, 2 on Retina / devicePixelRatio 2). Returns true
  /// when the atlas was rebuilt: the shell must then re-upload its texture.
  bool configure_scale(float ui_scale, float framebuffer_scale);

  // --- opening ----------------------------------------------------------------
  /// Opens one run; replaces what was shown.
  void open(std::shared_ptr<format::ByteSource> source);
  /// Opens a distributed run, one file per rank (docs/run_layout.md), showing
  /// rank `shown_rank` (the first rank when it is not among them) with a
  /// rank picker; Loss and Weights show every rank side by side. Two or more
  /// ranks; fewer opens the one like open().
  void open_ranks(std::vector<RankSource> ranks, int shown_rank);
  /// With decode_in_background: blocks until the chunks asked for so far are
  /// decoded (scripted frames: what a synchronous source would show).
  void wait_for_decodes();
  /// Shows a run list (a runs folder); picking one opens it.
  void open_run_list(std::vector<RunListEntry> runs);
  /// Compares the shown run with a second run (`tvis-view --compare`, the
  /// browser's ?url2=): the Compare page shows both at one position and
  /// their difference. Opening another run with open(), open_ranks(),
  /// open_run_list() or show_error() stops comparing; picking a run from the
  /// run list does not.
  void open_compare(std::shared_ptr<format::ByteSource> source);
  /// The second run could not be opened: the Compare page shows `message`.
  void show_compare_error(std::string message);
  /// Shows `message` as an error in place of a run (e.g. "cannot reach URL").
  void show_error(std::string message);
  /// A short line for the empty state ("Drop a run file here ...").
  void set_welcome_hint(std::string hint);

  // --- frame ------------------------------------------------------------------
  /// Builds one frame between ImGui::NewFrame() and ImGui::Render().
  void frame();
  /// The measured wall time of the shell's whole frame, in milliseconds.
  void record_frame_ms(double ms);

  // --- test surface ------------------------------------------------------------
  /// The state object, serialized as one JSON line.
  std::string state_json() const;
  /// Runs one command, a JSON object such as {"select": 12}, {"page":
  /// "Explore"}, {"panel": "Timeline"}, {"key": "]"}, {"event_row_rect": 4};
  /// returns its JSON answer (true / false / a value / {"error": ...}).
  std::string command(const std::string& json);
  /// True once a run is shown or a failure is; false while opening.
  bool settled() const;
  /// True while a run opens or any of its chunk reads is in flight.
  bool loading() const;
  /// Where the Explore list drew the row of event `id` in the last frame, in
  /// screen coordinates {x0, y0, x1, y1}; false when it was not drawn. Lets
  /// headless tests click real rows.
  bool event_row_rect(uint64_t id, float rect[4]) const;
  /// True when the last frame drew event `id`'s row with its data (not the
  /// placeholder of a chunk still loading).
  bool event_row_loaded(uint64_t id) const;
  /// Where the run list drew row `index` (0 = first listed run) in the last
  /// frame, as event_row_rect does; false when no run list row was drawn.
  bool run_row_rect(size_t index, float rect[4]) const;
  /// Selects event `id` as a click on its row would (the Explore inspector
  /// then shows it once its chunk is loaded). Ids past the run are ignored by
  /// the pages. For scripted screenshots (`tvis-view --select`).
  void select_event(uint64_t id);
  /// Shows Explore's bottom panel `name` ("Steps", "Timeline", "Source",
  /// "Layers", "Samples") as a click on its tab would. False for other names.
  bool show_panel(const std::string& name);

  struct Impl;
  /// The application's state (viewer/src/app_state.h), for this repository's
  /// tests and benchmarks, which read and drive it directly.
  Impl& internals() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tvis::viewer
