# tvis_sdl2_wasm: SDL2 for the browser build, compiled inside the wasm tree from
# the Debian source package that tools/bootstrap unpacks under
# TVIS_THIRD_PARTY_DIR (libsdl2-<version>).
#
# SDL ships a fixed configuration for Emscripten (include/SDL_config_emscripten.h,
# picked by include/SDL_config.h when __EMSCRIPTEN__ is defined), so nothing is
# configured: SDL's own CMake project would run some 200 configure checks, each
# one an emcc start (about three minutes on two cores), to arrive at the same
# answers. The subsystems compiled are the ones that header enables:
#   core, atomics, audio (disk, dummy, emscripten), cpuinfo, dynapi, events,
#   file, filesystem/emscripten, haptic (dummy), joystick (emscripten), libm,
#   loadso/dlopen, locale (emscripten), misc (emscripten), power (emscripten),
#   render (OpenGL ES 2 and software), sensor (dummy), stdlib,
#   thread (generic: the viewer is built without pthreads), timer (unix),
#   video (emscripten, dummy, yuv2rgb).
# Every source file guards itself with the driver's SDL_* macro, so a folder
# whose driver the header disables compiles to nothing.
# Invariant: the list below names folders, never files, so a newer Debian SDL2
# with files added or removed inside them builds without an edit here.
file(GLOB TVIS_SDL2_DIR LIST_DIRECTORIES true "${TVIS_THIRD_PARTY_DIR}/libsdl2-[0-9]*")
if(NOT TVIS_SDL2_DIR)
  message(FATAL_ERROR "SDL2 sources not found under ${TVIS_THIRD_PARTY_DIR}: run tools/bootstrap")
endif()
list(GET TVIS_SDL2_DIR 0 TVIS_SDL2_DIR)

set(tvis_sdl2_folders
  . atomic audio audio/disk audio/dummy audio/emscripten cpuinfo dynapi events
  file filesystem/emscripten haptic haptic/dummy joystick joystick/emscripten
  libm loadso/dlopen locale locale/emscripten misc misc/emscripten power
  power/emscripten render render/opengles2 render/software sensor sensor/dummy
  stdlib thread thread/generic timer timer/unix video video/dummy
  video/emscripten video/yuv2rgb)
set(tvis_sdl2_sources "")
foreach(folder IN LISTS tvis_sdl2_folders)
  file(GLOB found "${TVIS_SDL2_DIR}/src/${folder}/*.c")
  list(APPEND tvis_sdl2_sources ${found})
endforeach()

add_library(tvis_sdl2_wasm STATIC ${tvis_sdl2_sources})
# SDL's public headers are included as <SDL.h> (imgui_impl_sdl, shell/).
target_include_directories(tvis_sdl2_wasm SYSTEM PUBLIC "${TVIS_SDL2_DIR}/include")
target_include_directories(tvis_sdl2_wasm PRIVATE "${TVIS_SDL2_DIR}/src")
# SDL's own code: its warnings are not ours to fix; -O2 whatever the tree's type.
target_compile_options(tvis_sdl2_wasm PRIVATE -w -O2)
