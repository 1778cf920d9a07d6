// The browser shell: viewer.html's canvas, Emscripten's SDL2 + WebGL2, and
// the entry points the JS glue (viewer_glue.js) calls. The window and frame
// function are tvis_shell's (shell/); only the main loop differs (the
// browser's requestAnimationFrame through emscripten_set_main_loop).
#include <SDL.h>
#include <emscripten.h>
#include <imgui.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "js_byte_source.h"
#include "tvis/shell/gl_texture_uploader.h"
#include "tvis/shell/sdl_shell.h"
#include "tvis/viewer/app.h"
#include "tvis/viewer/source_opener.h"

namespace {

tvis::shell::Shell g_shell;
tvis::shell::GlTextureUploader g_textures;
std::unique_ptr<tvis::viewer::App> g_app;
std::string g_clipboard;
std::vector<tvis::viewer::RunListEntry> g_run_list;
std::vector<tvis::viewer::RankSource> g_ranks;

// JS source `js_id` of `bytes` bytes as the App's rank file `rank`.
tvis::viewer::RankSource js_rank_source(int js_id, uint64_t bytes, int rank, std::string name) {
  return {rank, name, [js_id, bytes, name]() {
            return tvis::format::Result<std::shared_ptr<tvis::format::ByteSource>>(
                std::make_shared<tvis::web::JsByteSource>(js_id, bytes, name));
          }};
}

EM_JS(void, tvis_js_clipboard_write, (const char* text), {
  const s = UTF8ToString(text);
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(s).catch(() => {});
});

EM_JS(void, tvis_js_start, (), { Module.tvisStart(); });
// AppOptions::open_url: the page goes to a path of its own server, with the
// page's own ?token= (tvis open's session token: it sets no cookie) added.
EM_JS(void, tvis_js_open_url, (const char* url), {
  const u = new URL(UTF8ToString(url), window.location.href);
  const token = new URLSearchParams(window.location.search).get('token');
  if (token && u.origin === window.location.origin && !u.searchParams.has('token')) u.searchParams.set('token', token);
  window.location.href = u.href;
});
// AppOptions::recheck_files: asks the page's server to recheck (viewer_glue.js);
// the answer comes later as a {"freshness": ...} command.
EM_JS(void, tvis_js_recheck_files, (), { if (Module.tvisRecheckFiles) Module.tvisRecheckFiles(); });
// viewer::source_opener: a call's source link, handed to the page's
// window.tvisViewer.onSourceLink(file, line) when the page set one.
EM_JS(void, tvis_js_source_link, (const char* file, unsigned line), {
  if (window.tvisViewer && typeof window.tvisViewer.onSourceLink === 'function')
    window.tvisViewer.onSourceLink(UTF8ToString(file), line);
});
EM_JS(int, tvis_js_hold_frames, (), { return Module.tvisHoldFrames ? 1 : 0; });
EM_JS(void, tvis_js_first_frame, (), { Module.tvisFirstFrame(); });
EM_JS(void, tvis_js_fatal, (const char* message), {
  const s = document.getElementById('tvis-status');
  if (s) s.textContent = 'tvis cannot start: ' + UTF8ToString(message);
});

// The first frame waits (at most kMaxHoldMs) while the page opens a ?url=
// and the first view's reads answer: on a software GL the first frame and
// its presentation block the main thread for a few hundred milliseconds,
// and answers arriving meanwhile would wait behind them. Held, the first
// frame drawn already shows the run's rows, and that cost is paid once.
constexpr double kMaxHoldMs = 500;
double g_started_ms = 0;
bool g_drawn = false;

// The browser's clipboard is write-only without a permission prompt: copy
// goes to the system clipboard, paste reads what this page copied.
void set_clipboard(void*, const char* text) {
  g_clipboard = text ? text : "";
  tvis_js_clipboard_write(g_clipboard.c_str());
}
const char* get_clipboard(void*) { return g_clipboard.c_str(); }

void main_loop() {
  if (!g_app) return;
  if (!g_drawn) {
    const bool opening = tvis_js_hold_frames() || g_app->loading();
    if (opening && emscripten_get_now() - g_started_ms < kMaxHoldMs) return;
    g_drawn = true;
    tvis_js_first_frame();
  }
  tvis::shell::shell_frame(g_shell, *g_app);
}

}  // namespace

extern "C" {

/// Opens JS source `js_id` (a File or an HTTP Range source) of `size` bytes.
EMSCRIPTEN_KEEPALIVE void tvis_open_js_source(int js_id, double size, const char* name) {
  if (!g_app) return;
  g_app->open(std::make_shared<tvis::web::JsByteSource>(js_id, static_cast<uint64_t>(size), name ? name : "run"));
}

/// Compares the shown run with JS source `js_id` (?url2=): the Compare page.
EMSCRIPTEN_KEEPALIVE void tvis_open_compare_js_source(int js_id, double size, const char* name) {
  if (!g_app) return;
  g_app->open_compare(std::make_shared<tvis::web::JsByteSource>(js_id, static_cast<uint64_t>(size), name ? name : "run"));
}

/// The run to compare with could not be opened: the Compare page says why.
EMSCRIPTEN_KEEPALIVE void tvis_show_compare_error(const char* message) {
  if (g_app) g_app->show_compare_error(message ? message : "error");
}

/// Starts a run list (a dropped runs folder): begin, add each run, end.
EMSCRIPTEN_KEEPALIVE void tvis_run_list_begin() { g_run_list.clear(); }
EMSCRIPTEN_KEEPALIVE void tvis_run_list_add(int js_id, double size, const char* name, const char* file_name) {
  const uint64_t bytes = static_cast<uint64_t>(size);
  std::string file = file_name ? file_name : "run.tvis";
  g_run_list.push_back({name ? name : "run", [js_id, bytes, file]() {
                          return tvis::format::Result<std::shared_ptr<tvis::format::ByteSource>>(
                              std::make_shared<tvis::web::JsByteSource>(js_id, bytes, file));
                        }});
}
/// The last added run is a distributed run: one of its rank files (rank 0's too).
EMSCRIPTEN_KEEPALIVE void tvis_run_list_add_rank(int js_id, double size, int rank, const char* file_name) {
  if (g_run_list.empty()) return;
  g_run_list.back().ranks.push_back(js_rank_source(js_id, static_cast<uint64_t>(size), rank, file_name ? file_name : "run.tvis"));
}
EMSCRIPTEN_KEEPALIVE void tvis_run_list_end() {
  if (g_app) g_app->open_run_list(std::move(g_run_list));
  g_run_list.clear();
}

/// Opens a distributed run, one JS source per rank file: begin, add each, end
/// with the rank to show (App::open_ranks).
EMSCRIPTEN_KEEPALIVE void tvis_ranks_begin() { g_ranks.clear(); }
EMSCRIPTEN_KEEPALIVE void tvis_ranks_add(int js_id, double size, int rank, const char* name) {
  g_ranks.push_back(js_rank_source(js_id, static_cast<uint64_t>(size), rank, name ? name : "run.tvis"));
}
EMSCRIPTEN_KEEPALIVE void tvis_ranks_end(int shown_rank) {
  if (g_app) g_app->open_ranks(std::move(g_ranks), shown_rank);
  g_ranks.clear();
}

/// Resizes the window (canvas) to the page's size in CSS pixels.
EMSCRIPTEN_KEEPALIVE void tvis_resize(int width, int height) {
  if (g_shell.window && width > 0 && height > 0) SDL_SetWindowSize(g_shell.window, width, height);
}

/// Shows `message` in the error panel (an unreachable URL, an HTTP error).
EMSCRIPTEN_KEEPALIVE void tvis_show_error(const char* message) {
  if (g_app) g_app->show_error(message ? message : "error");
}

/// The test surface's state object as JSON; valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* tvis_state_json() {
  static std::string json;
  json = g_app ? g_app->state_json() : "{}";
  return json.c_str();
}

/// The test surface's command entry (App::command): one JSON object in, its
/// JSON answer out; valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* tvis_command(const char* command) {
  static std::string json;
  json = g_app && command ? g_app->command(command) : "null";
  return json.c_str();
}

/// Frames not drawn because they were identical to the one on screen.
EMSCRIPTEN_KEEPALIVE double tvis_frames_skipped() { return static_cast<double>(g_shell.frames_skipped); }

}  // extern "C"

int main() {
  tvis::shell::ShellOptions options;
  options.width = 1280;
  options.height = 800;
  options.skip_unchanged_frames = true;  // an idle page composites nothing (software GL: frees the main thread)
  std::string error;
  if (!tvis::shell::shell_init(options, &g_shell, &error)) {
    std::fprintf(stderr, "tvis: %s\n", error.c_str());
    tvis_js_fatal(error.c_str());
    return 1;
  }
  g_shell.texture_changes = [] { return g_textures.changes(); };
  ImGuiIO& io = ImGui::GetIO();
  io.SetClipboardTextFn = set_clipboard;
  io.GetClipboardTextFn = get_clipboard;
  tvis::viewer::AppOptions app_options;
  app_options.texture_uploader = &g_textures;
  app_options.open_url = [](const std::string& url) { tvis_js_open_url(url.c_str()); };
  app_options.recheck_files = [](const std::string&) {
    tvis_js_recheck_files();
    return std::string("null");  // not an answer: the page keeps what it had until the command arrives
  };
  tvis::viewer::source_opener() = [](const std::string& file, uint32_t line) { tvis_js_source_link(file.c_str(), line); };
  g_app = std::make_unique<tvis::viewer::App>(app_options);
  g_app->set_welcome_hint(
      "Drop a run file (run.tvis) or a runs folder here, use Open run / Open folder, or add ?url=<run URL> to the "
      "address.");
  g_started_ms = emscripten_get_now();
  tvis_js_start();
  emscripten_set_main_loop(main_loop, 0, 1);
  return 0;
}
