// sdl_shell.h: the SDL2 + OpenGL3 window both shells use (native tvis-view
// and the browser's viewer.html through Emscripten's SDL2). It holds the one
// frame function; each shell supplies only its main loop.
//
// Contract:
//   - shell_init() creates the window, the GL context (desktop GL 3.2 core,
//     or WebGL2 / GLES 3.0 in the browser), the ImGui context and the SDL2 +
//     OpenGL3 backends. On failure it returns false with a one-line reason.
//   - shell_frame() runs exactly one frame: events, HiDPI scale (re-uploading
//     the font atlas when the App rebuilds it), ImGui frame, App::frame(),
//     draw, swap. It records the frame's measured cost (everything but the
//     wait for vsync) with App::record_frame_ms(). Returns false once the
//     user closed the window.
//   - Unchanged frames: with ShellOptions::skip_unchanged_frames, a frame
//     whose fingerprint (frame_fingerprint.h) equals the one on screen is not
//     drawn or presented: the browser then composites nothing new, which on a
//     software GL leaves the main thread free for network answers. A frame
//     with a before_swap hook is always drawn.
//   - Clipboard: ImGui's SDL backend wires SDL's clipboard (the system one on
//     native; the browser shell overrides it with navigator.clipboard).
#pragma once

#include <functional>
#include <string>

struct SDL_Window;

namespace tvis::viewer {
class App;
}

namespace tvis::shell {

struct ShellOptions {
  const char* title = "tvis";
  int width = 1400;
  int height = 900;
  bool vsync = true;
  float ui_scale = 0;  // 0: from the display's DPI (native) or 1 (browser)
  bool skip_unchanged_frames = false;
};

struct Shell {
  SDL_Window* window = nullptr;
  void* gl_context = nullptr;
  ShellOptions options;
  /// Called once, after the next frame is drawn and before it is swapped
  /// (the back buffer then holds exactly that frame: screenshots).
  std::function<void()> before_swap;
  /// Texture upload counter folded into the fingerprint (the shell's
  /// GlTextureUploader::changes), or null.
  std::function<uint64_t()> texture_changes;
  uint64_t shown_fingerprint = 0;  // of the frame on screen (0: none yet)
  uint64_t font_uploads = 0;
  uint64_t frames_skipped = 0;
};

bool shell_init(const ShellOptions& options, Shell* shell, std::string* error);
bool shell_frame(Shell& shell, viewer::App& app);
void shell_shutdown(Shell& shell);

/// Size of the GL framebuffer in pixels (for screenshots).
void shell_framebuffer_size(const Shell& shell, int* width, int* height);

}  // namespace tvis::shell
