// theme.h: the viewer's look: a dark theme and the UI font (DejaVu Sans,
// embedded at build time), both scaled for HiDPI.
#pragma once

namespace tvis::viewer {

/// Applies the dark style scaled by `ui_scale` (replaces the current style).
void apply_theme(float ui_scale);

/// Rebuilds the font atlas at 15 px x ui_scale x framebuffer_scale and sets
/// FontGlobalScale so text is drawn at 15 px x ui_scale window units, crisp
/// on the framebuffer. Falls back to ImGui's default font if the embedded
/// one is missing.
void build_fonts(float ui_scale, float framebuffer_scale);

/// Accent colours shared by the pages.
namespace colors {
inline constexpr unsigned kError = 0xFF6B6BFF;    // IM_COL32 order: 0xAABBGGRR
inline constexpr unsigned kMuted = 0xFF9A9A9A;
inline constexpr unsigned kAccent = 0xFFFFB35C;
inline constexpr unsigned kWarning = 0xFF4FC8F5;
}  // namespace colors

}  // namespace tvis::viewer
