#include "widget_style.h"

#include <algorithm>

namespace tvis::widgets::detail {

ImU32 series_color(int i) {
    static const ImU32 kPalette[] = {
        IM_COL32(86, 180, 233, 255), IM_COL32(230, 159, 0, 255),   IM_COL32(0, 190, 140, 255),
        IM_COL32(240, 228, 66, 255), IM_COL32(204, 121, 167, 255), IM_COL32(213, 94, 0, 255),
        IM_COL32(160, 160, 255, 255), IM_COL32(200, 200, 200, 255),
    };
    const int n = static_cast<int>(sizeof kPalette / sizeof kPalette[0]);
    return kPalette[((i % n) + n) % n];
}

ImVec2 resolve_size(ImVec2 requested, float default_height, ImVec2 min_size) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    ImVec2 s = requested;
    if (s.x <= 0.0f) s.x = avail.x + s.x;  // ImGui convention: negative = avail - |x|
    if (requested.x == 0.0f) s.x = avail.x;
    if (s.y <= 0.0f) s.y = default_height;
    s.x = std::max(s.x, min_size.x);
    s.y = std::max(s.y, min_size.y);
    return s;
}

}  // namespace tvis::widgets::detail
