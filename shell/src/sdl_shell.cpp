#include "tvis/shell/sdl_shell.h"

#include <SDL.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <algorithm>
#include <cmath>
#include <chrono>

#if defined(__EMSCRIPTEN__)
#include <SDL_opengles2.h>
#else
#include <SDL_opengl.h>
#endif

#include "tvis/shell/frame_fingerprint.h"
#include "tvis/viewer/app.h"

namespace tvis::shell {

namespace {

// DPI-derived UI scale on desktops that do not scale for us (X11); 1 where
// the framebuffer scale already carries HiDPI (macOS, the browser).
float display_ui_scale(SDL_Window* window) {
#if defined(__EMSCRIPTEN__)
  (void)window;
  return 1.0f;
#else
  float ddpi = 0;
  if (SDL_GetDisplayDPI(SDL_GetWindowDisplayIndex(window), &ddpi, nullptr, nullptr) != 0 || ddpi <= 0) return 1.0f;
  // Round to quarter steps; ordinary 96-dpi screens (and Xvfb) stay at 1.
  float scale = std::round(ddpi / 96.0f * 4.0f) / 4.0f;
  return std::clamp(scale, 1.0f, 3.0f);
#endif
}

void update_scale(Shell& shell, viewer::App& app) {
  int w = 0, h = 0, fw = 0, fh = 0;
  SDL_GetWindowSize(shell.window, &w, &h);
  SDL_GL_GetDrawableSize(shell.window, &fw, &fh);
  const float fb_scale = w > 0 ? static_cast<float>(fw) / static_cast<float>(w) : 1.0f;
  const float ui_scale = shell.options.ui_scale > 0 ? shell.options.ui_scale : display_ui_scale(shell.window);
  if (app.configure_scale(ui_scale, fb_scale)) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    ++shell.font_uploads;
  }
}

}  // namespace

bool shell_init(const ShellOptions& options, Shell* shell, std::string* error) {
  shell->options = options;
  if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
    *error = std::string("cannot initialize SDL video: ") + SDL_GetError();
    return false;
  }
#if defined(__EMSCRIPTEN__)
  const char* glsl_version = "#version 300 es";
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
#else
  const char* glsl_version = "#version 150";
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 2);
#endif
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
  const auto flags =
      static_cast<SDL_WindowFlags>(SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  shell->window = SDL_CreateWindow(options.title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, options.width,
                                   options.height, flags);
  if (!shell->window) {
    *error = std::string("cannot create a window: ") + SDL_GetError();
    return false;
  }
  shell->gl_context = SDL_GL_CreateContext(shell->window);
  if (!shell->gl_context) {
    *error = std::string("cannot create an OpenGL context: ") + SDL_GetError();
    return false;
  }
  SDL_GL_MakeCurrent(shell->window, shell->gl_context);
  SDL_GL_SetSwapInterval(options.vsync ? 1 : 0);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplSDL2_InitForOpenGL(shell->window, shell->gl_context);
  ImGui_ImplOpenGL3_Init(glsl_version);
  return true;
}

namespace {

/// One key press is one move however long a frame takes: ImGui counts a
/// held key's repeats from io.DeltaTime (first repeat after 0.25 s down), so
/// a press whose key-up lands a slow frame later (a loaded machine, a large
/// decode) would repeat. Each frame counts as at most kMaxFrameSeconds: a
/// key must be held over four frames or more before it repeats, and
/// Replay's playback moves at most one period per such frame.
constexpr float kMaxFrameSeconds = 1.0f / 15;

void cap_frame_seconds(ImGuiIO& io) { io.DeltaTime = std::min(io.DeltaTime, kMaxFrameSeconds); }

}  // namespace

bool shell_frame(Shell& shell, viewer::App& app) {
  const auto t0 = std::chrono::steady_clock::now();
  bool running = true;
  SDL_Event event;
  while (SDL_PollEvent(&event)) {
    ImGui_ImplSDL2_ProcessEvent(&event);
    if (event.type == SDL_QUIT) running = false;
    if (event.type == SDL_WINDOWEVENT && event.window.event == SDL_WINDOWEVENT_CLOSE &&
        event.window.windowID == SDL_GetWindowID(shell.window))
      running = false;
  }
  update_scale(shell, app);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplSDL2_NewFrame();
  cap_frame_seconds(ImGui::GetIO());
  ImGui::NewFrame();
  app.frame();
  ImGui::Render();

  int fw = 0, fh = 0;
  shell_framebuffer_size(shell, &fw, &fh);
  uint64_t print = kAlwaysDraw;
  if (shell.options.skip_unchanged_frames && !shell.before_swap) {
    const uint64_t textures = shell.texture_changes ? shell.texture_changes() : 0;
    const uint64_t extra = (static_cast<uint64_t>(fw) << 48) ^ (static_cast<uint64_t>(fh) << 32) ^
                           (shell.font_uploads << 24) ^ textures;
    print = frame_fingerprint(*ImGui::GetDrawData(), extra);
  }
  const bool draw = print == kAlwaysDraw || print != shell.shown_fingerprint;
  if (draw) {
    glViewport(0, 0, fw, fh);
    glClearColor(0.09f, 0.098f, 0.114f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    shell.shown_fingerprint = print;
  } else {
    ++shell.frames_skipped;
  }
  const auto t1 = std::chrono::steady_clock::now();
  app.record_frame_ms(std::chrono::duration<double, std::milli>(t1 - t0).count());
  if (shell.before_swap) {
    auto hook = std::move(shell.before_swap);
    shell.before_swap = nullptr;
    hook();
  }
  if (draw) SDL_GL_SwapWindow(shell.window);
  return running;
}

void shell_framebuffer_size(const Shell& shell, int* width, int* height) {
  SDL_GL_GetDrawableSize(shell.window, width, height);
}

void shell_shutdown(Shell& shell) {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
  if (shell.gl_context) SDL_GL_DeleteContext(shell.gl_context);
  if (shell.window) SDL_DestroyWindow(shell.window);
  SDL_Quit();
  shell.window = nullptr;
  shell.gl_context = nullptr;
}

}  // namespace tvis::shell
