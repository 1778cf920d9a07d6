// bar_chart.h: labelled horizontal bars (logits per class, ||grad|| per
// layer), optionally sorted, with exact hover values.
//
// Usage:
//   const char* names[] = {"cat", "dog", "ship"};
//   BarChartOptions o; o.sorted = true; o.highlight = target_class;
//   BarChartResult r = bar_chart("##logits", ValueSpan(logits), names, o);
//   if (r.clicked) select_class(r.index);
//
// Contracts:
// - labels is null (bars are named by index) or holds values.size() strings.
// - Bars grow from 0: negative values to the left in a warm colour. The scale
//   is max |finite value|; NaN/Inf bars draw no bar and read "nan"/"inf".
// - sorted: largest value first (NaN last), ties keep their order. Indices in
//   the result are always indices into `values`, never sorted positions.
// - More rows than fit scroll inside a child region (ImGuiListClipper), so
//   10^5 bars cost only the visible rows.
#pragma once

#include <cstddef>

#include "imgui.h"
#include "tvis/widgets/value_span.h"

namespace tvis::widgets {

struct BarChartOptions {
    ImVec2 size = ImVec2(0.0f, 0.0f);  // x <= 0: available width; y <= 0: all rows, at most 320 px
    bool sorted = false;
    int highlight = -1;                 // index drawn in the highlight colour (e.g. the target)
    bool show_tooltip = true;
};

struct BarChartResult {
    bool hovered = false;  // mouse over a bar's row
    bool clicked = false;
    int index = -1;        // index into values of the hovered row
    double value = 0.0;
};

BarChartResult bar_chart(const char* id, ValueSpan values, const char* const* labels, const BarChartOptions& opts = {});

}  // namespace tvis::widgets
