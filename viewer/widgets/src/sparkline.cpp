#include "tvis/widgets/sparkline.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tvis/widgets/decimate.h"
#include "tvis/widgets/format_number.h"
#include "draw_decimated.h"
#include "widget_style.h"

namespace tvis::widgets {

SparklineResult sparkline(const char* id, ValueSpan values, ImVec2 size, ImU32 color) {
    SparklineResult res;
    if (size.x <= 0.0f) size.x = 80.0f;
    if (size.y <= 0.0f) size.y = ImGui::GetTextLineHeight();
    ImGui::PushID(id);
    const ImVec2 pos = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##spark", size);
    const bool hovered = ImGui::IsItemHovered();
    ImGui::PopID();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (!color) color = detail::series_color(0);
    const std::size_t n = values.size();
    if (n == 0) return res;

    const int columns = std::max(1, static_cast<int>(size.x) - 2);
    const double x_hi = n > 1 ? static_cast<double>(n - 1) : 1.0;
    static thread_local std::vector<DecimatedVertex> verts;
    const DecimateStats s = decimate_min_max(ValueSpan(), values, 0.0, x_hi, columns, false, &verts);
    double lo = s.y_min, hi = s.y_max;
    if (!(hi > lo)) lo -= 0.5, hi += 0.5;
    const float x0 = pos.x + 1.0f, w = size.x - 2.0f, y0 = pos.y + 1.0f, h = size.y - 2.0f;
    auto sx = [&](double x) { return x0 + static_cast<float>(x / x_hi) * w; };
    auto sy = [&](double y) { return y0 + h - static_cast<float>((y - lo) / (hi - lo)) * h; };

    static thread_local std::vector<ImVec2> pts;
    std::size_t i = 0;
    while (i < verts.size()) {
        pts.clear();
        for (; i < verts.size() && !std::isnan(verts[i].y); ++i) pts.push_back(ImVec2(sx(verts[i].x), sy(verts[i].y)));
        detail::draw_decimated(dl, pts, color, 1.0f);
        res.vertices += pts.size();
        ++i;
    }
    const double last = values[n - 1];
    if (std::isfinite(last)) dl->AddCircleFilled(ImVec2(sx(static_cast<double>(n - 1)), sy(last)), 1.5f, color);

    if (hovered) {
        res.hovered = true;
        const double xm = (ImGui::GetIO().MousePos.x - x0) / w * x_hi;
        const std::size_t idx = static_cast<std::size_t>(std::clamp(std::lround(xm), 0l, static_cast<long>(n - 1)));
        res.has_point = true;
        res.index = idx;
        res.value = values[idx];
        char buf[48];
        format_exact(buf, sizeof buf, res.value);
        ImGui::SetTooltip("[%zu] = %s", idx, buf);
    }
    return res;
}

}  // namespace tvis::widgets
