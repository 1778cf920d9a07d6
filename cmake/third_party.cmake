# Third-party libraries as imported targets, the same names on both targets:
#   tvis::flatbuffers  header-only runtime (Debian's headers; for em++ through a
#                      folder holding only a link to them, never /usr/include)
#   tvis::zstd         native: Debian's libzstd; em++: compiled from the Debian
#                      source package (decompressor + compressor, no asm)
#   tvis::xxhash       header-only (XXH_INLINE_ALL)
#   tvis::imgui        Dear ImGui 1.86 core compiled from the Debian source
#                      package with viewer/imconfig_tvis.h (32-bit ImDrawIdx)
# Sources of source packages are unpacked by tools/bootstrap under
# TVIS_THIRD_PARTY_DIR (build/third_party); nothing here downloads.

set(TVIS_SYSTEM_HEADER_LINKS "${CMAKE_BINARY_DIR}/system_header_links")

# Expose one Debian header (or header folder) to em++ without exposing /usr/include.
function(tvis_link_system_header name)
  file(MAKE_DIRECTORY "${TVIS_SYSTEM_HEADER_LINKS}")
  if(NOT EXISTS "${TVIS_SYSTEM_HEADER_LINKS}/${name}")
    file(CREATE_LINK "/usr/include/${name}" "${TVIS_SYSTEM_HEADER_LINKS}/${name}" SYMBOLIC)
  endif()
endfunction()

# --- flatbuffers ------------------------------------------------------------
add_library(tvis_flatbuffers INTERFACE)
add_library(tvis::flatbuffers ALIAS tvis_flatbuffers)
if(EMSCRIPTEN)
  tvis_link_system_header(flatbuffers)
  target_include_directories(tvis_flatbuffers SYSTEM INTERFACE "${TVIS_SYSTEM_HEADER_LINKS}")
endif()
find_program(FLATC flatc REQUIRED)

# --- xxhash -----------------------------------------------------------------
add_library(tvis_xxhash INTERFACE)
add_library(tvis::xxhash ALIAS tvis_xxhash)
target_compile_definitions(tvis_xxhash INTERFACE XXH_INLINE_ALL)
if(EMSCRIPTEN)
  tvis_link_system_header(xxhash.h)
  target_include_directories(tvis_xxhash SYSTEM INTERFACE "${TVIS_SYSTEM_HEADER_LINKS}")
endif()

# --- zstd -------------------------------------------------------------------
if(EMSCRIPTEN)
  file(GLOB TVIS_ZSTD_DIR LIST_DIRECTORIES true "${TVIS_THIRD_PARTY_DIR}/libzstd-*")
  if(NOT TVIS_ZSTD_DIR)
    message(FATAL_ERROR "zstd sources not found under ${TVIS_THIRD_PARTY_DIR}: run tools/bootstrap")
  endif()
  list(GET TVIS_ZSTD_DIR 0 TVIS_ZSTD_DIR)
  file(GLOB TVIS_ZSTD_SOURCES
       "${TVIS_ZSTD_DIR}/lib/common/*.c"
       "${TVIS_ZSTD_DIR}/lib/decompress/*.c"
       "${TVIS_ZSTD_DIR}/lib/compress/*.c")
  add_library(tvis_zstd STATIC ${TVIS_ZSTD_SOURCES})
  target_compile_definitions(tvis_zstd PRIVATE ZSTD_DISABLE_ASM ZSTD_MULTITHREAD=0)
  target_include_directories(tvis_zstd SYSTEM PUBLIC "${TVIS_ZSTD_DIR}/lib")
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
  add_library(tvis_zstd INTERFACE)
  target_link_libraries(tvis_zstd INTERFACE PkgConfig::ZSTD)
endif()
add_library(tvis::zstd ALIAS tvis_zstd)

# --- imgui (viewer only) ----------------------------------------------------
file(GLOB TVIS_IMGUI_DIR LIST_DIRECTORIES true "${TVIS_THIRD_PARTY_DIR}/imgui-*")
if(TVIS_IMGUI_DIR)
  list(GET TVIS_IMGUI_DIR 0 TVIS_IMGUI_DIR)
  add_library(tvis_imgui STATIC
    "${TVIS_IMGUI_DIR}/imgui.cpp"
    "${TVIS_IMGUI_DIR}/imgui_draw.cpp"
    "${TVIS_IMGUI_DIR}/imgui_tables.cpp"
    "${TVIS_IMGUI_DIR}/imgui_widgets.cpp"
    "${TVIS_IMGUI_DIR}/imgui_demo.cpp")
  target_include_directories(tvis_imgui SYSTEM PUBLIC "${TVIS_IMGUI_DIR}" "${CMAKE_SOURCE_DIR}/viewer/config")
  target_compile_definitions(tvis_imgui PUBLIC IMGUI_USER_CONFIG="imconfig_tvis.h")
  add_library(tvis::imgui ALIAS tvis_imgui)
  set(TVIS_IMGUI_BACKENDS_DIR "${TVIS_IMGUI_DIR}/backends" CACHE INTERNAL "")
elseif(NOT TVIS_PYTHON_PACKAGE_ONLY AND NOT TVIS_ONLY_FORMAT)  # those builds have no viewer
  message(FATAL_ERROR "Dear ImGui sources not found under ${TVIS_THIRD_PARTY_DIR}: run tools/bootstrap")
endif()

# --- nlohmann/json (header-only; viewer state, tools) ---------------------------
add_library(tvis_json INTERFACE)
add_library(tvis::json ALIAS tvis_json)
# tvis/json/safe.h: text() (never throws on bytes that are not UTF-8) and
# parse() (bounded nesting), for every JSON that crosses a process boundary.
target_include_directories(tvis_json INTERFACE "${CMAKE_SOURCE_DIR}/json/include")
# Serialization only in the viewer: no exception paths are taken there; a throw
# would abort in the browser build, where exceptions are off.
if(EMSCRIPTEN)
  tvis_link_system_header(nlohmann)
  target_include_directories(tvis_json SYSTEM INTERFACE "${TVIS_SYSTEM_HEADER_LINKS}")
endif()
