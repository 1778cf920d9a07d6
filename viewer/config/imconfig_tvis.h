// imconfig_tvis.h: the one Dear ImGui configuration for both targets
// (native and wasm), included by ImGui through IMGUI_USER_CONFIG.
#pragma once

// 32-bit indices: ImGui 1.86's OpenGL3 backend has no vertex-offset support on
// WebGL, so large draw lists (heatmaps, long trees) need them.
#define ImDrawIdx unsigned int

#define IMGUI_DISABLE_OBSOLETE_FUNCTIONS
