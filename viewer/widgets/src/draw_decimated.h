// draw_decimated.h (private): draws a decimated polyline so that its extremes
// stay visible. ImGui's anti-aliased polylines taper to a sub-pixel sliver at
// a sharp reversal (a one-column spike), which rasterizes shorter than it is;
// so every pixel column whose consecutive vertices span more than a pixel also
// gets a solid bar, `thickness` wide, from its min to its max.
#pragma once

#include <cmath>
#include <vector>

#include "imgui.h"

namespace tvis::widgets::detail {

inline void draw_decimated(ImDrawList* dl, const std::vector<ImVec2>& pts, ImU32 color, float thickness) {
    if (pts.empty()) return;
    if (pts.size() == 1) {
        dl->AddRectFilled(ImVec2(pts[0].x - 1.0f, pts[0].y - 1.0f), ImVec2(pts[0].x + 1.0f, pts[0].y + 1.0f), color);
        return;
    }
    dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), color, ImDrawFlags_None, thickness);
    const float half = thickness * 0.5f;
    for (std::size_t i = 1; i < pts.size(); ++i) {
        const ImVec2 a = pts[i - 1], b = pts[i];
        if (std::floor(a.x) != std::floor(b.x) || std::fabs(a.y - b.y) <= 1.0f) continue;
        const float x = 0.5f * (a.x + b.x);
        dl->AddRectFilled(ImVec2(x - half, std::fmin(a.y, b.y)), ImVec2(x + half, std::fmax(a.y, b.y)), color);
    }
}

}  // namespace tvis::widgets::detail
