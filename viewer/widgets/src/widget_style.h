// widget_style.h (private): colours, padding and layout shared by the widgets,
// so every plot looks like one family on ImGui's dark theme.
#pragma once

#include "imgui.h"

namespace tvis::widgets::detail {

constexpr float kPad = 4.0f;            // inner padding of every widget frame
constexpr float kTickLen = 3.0f;        // tick mark length on axes
constexpr float kDefaultHeight = 200.0f;

constexpr ImU32 kFrameBg = IM_COL32(22, 24, 28, 255);
constexpr ImU32 kFrameBorder = IM_COL32(70, 74, 82, 255);
constexpr ImU32 kGridColor = IM_COL32(255, 255, 255, 22);
constexpr ImU32 kAxisText = IM_COL32(170, 174, 182, 255);
constexpr ImU32 kCrosshair = IM_COL32(255, 255, 255, 90);
constexpr ImU32 kHighlight = IM_COL32(255, 255, 255, 230);
constexpr ImU32 kBarColor = IM_COL32(86, 160, 233, 255);
constexpr ImU32 kBarHover = IM_COL32(140, 200, 255, 255);
constexpr ImU32 kNegativeBar = IM_COL32(230, 120, 80, 255);

// Series colours (colour-blind-safe hues that read well on dark grey).
ImU32 series_color(int i);

// Resolves an ImGui-style size request: x <= 0 fills the available width,
// y <= 0 uses default_height. Never smaller than min_size.
ImVec2 resolve_size(ImVec2 requested, float default_height, ImVec2 min_size = ImVec2(32.0f, 24.0f));

// The point in [a, b] at fraction t.
inline float lerp(float a, float b, float t) { return a + (b - a) * t; }

}  // namespace tvis::widgets::detail
