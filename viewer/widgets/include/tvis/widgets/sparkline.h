// sparkline.h: a tiny line of a series for table cells (no axes), decimated
// like line_plot, with the hovered point's exact value in a tooltip.
//
// Usage:
//   ImGui::TableNextColumn();
//   sparkline("##grad", ValueSpan(grad_norm_per_step));
//
// Contracts:
// - size.x <= 0: 80 px; size.y <= 0: the text line height. y fits the
//   finite values; non-finite values leave gaps; the last value is marked.
// - Takes one ImGui item of exactly `size`.
#pragma once

#include <cstddef>

#include "imgui.h"
#include "tvis/widgets/value_span.h"

namespace tvis::widgets {

struct SparklineResult {
    bool hovered = false;
    std::size_t index = 0;  // the point under the mouse's column (valid when hovered and has_point)
    bool has_point = false;
    double value = 0.0;
    std::size_t vertices = 0;
};

SparklineResult sparkline(const char* id, ValueSpan values, ImVec2 size = ImVec2(0.0f, 0.0f), ImU32 color = 0);

}  // namespace tvis::widgets
