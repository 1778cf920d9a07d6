// line_plot.h: one or more series as lines, with axes, zoom, pan and exact
// hover values. Loss per batch, statistics over steps.
//
// Usage:
//   PlotSeries s;
//   s.label = "loss"; s.y = ValueSpan(losses);          // x = 0, 1, 2, ...
//   LinePlotOptions o; o.log_y = true;
//   LinePlotResult r = line_plot("##loss", &s, 1, o);
//   if (r.has_point) status("step %zu: %s", r.index, format_exact(r.y).c_str());
//
// Interaction (mouse over the plot area):
//   wheel: zoom x around the mouse; Shift+wheel: zoom y.
//   drag (left): pan. Double-click: back to fitting all data.
//   click (press and release without moving): result.clicked, with the
//   nearest point in the result (e.g. jump to that step).
//   Until y is zoomed or panned by hand, y fits the data visible in x.
//   The view lives in ImGui's state storage under the widget's id.
// Drawing:
// - Each series is decimated to min/max per pixel column (decimate.h), so a
//   series submits at most 2 x plot width + 2 polyline vertices however long
//   it is, and every column's extreme values are drawn.
// - Non-finite values (and values <= 0 with log_y) leave gaps.
// - While the view fits all data, x is padded by 2% of its span on each side
//   (the first and last points, and a marker on them, are off the frame).
// - When at most one point per 8 pixel columns is visible, each point is
//   drawn as a dot too (a curve of 3 steps reads as 3 measurements).
// - x must be non-decreasing when given (see decimate.h).
// Axes: ticks at 1, 2, 5 x 10^k steps, as many as fit (a y label every 1.5
// text lines, or 7/6 of a line when that gives 3 or more where 1.5 gave
// fewer; an x label every 90 px; axis_ticks.h). y is drawn on a log
// scale when log_y is set, or (auto_log_y) when every value in view is > 0
// and they span two decades or more (wants_log_scale); the plot then reads
// "log y" in its top-right corner. While y is zoomed or panned by hand the
// scale in use is kept.
// Hover: the nearest source point to the mouse (among points in the mouse's
// pixel column, the one closest in y; else the closest in x), reported
// exactly in the result and in a tooltip with "%.9g".
#pragma once

#include <cmath>
#include <cstddef>

#include "imgui.h"
#include "tvis/widgets/value_span.h"

namespace tvis::widgets {

struct PlotSeries {
    const char* label = nullptr;  // shown in the legend and tooltip; may be null
    ValueSpan y;
    ValueSpan x;                  // empty: x of point i is i
    ImU32 color = 0;              // 0: the palette colour of the series index
};

struct LinePlotOptions {
    ImVec2 size = ImVec2(0.0f, 0.0f);  // x <= 0: available width; y <= 0: 200 px
    bool log_y = false;                // always a log y scale
    bool auto_log_y = true;            // a log y scale when the values in view span >= 2 decades
    bool show_legend = true;           // when any series has a label
    bool show_tooltip = true;
    double marker_x = NAN;             // a vertical marker (e.g. the current step); NaN: none
    bool integer_x = false;            // x counts something (steps): ticks only at whole numbers
};

// The visible data rectangle. With log_y, y_lo / y_hi are log10 of the values.
struct PlotView {
    double x_lo = 0.0, x_hi = 1.0;
    double y_lo = 0.0, y_hi = 1.0;
};

struct LinePlotResult {
    bool hovered = false;     // mouse over the plot area
    bool clicked = false;     // left button released on the plot without dragging
    bool has_point = false;   // a nearest point was found (valid below)
    int series = -1;
    std::size_t index = 0;
    double x = 0.0, y = 0.0;  // exact source values (y not log-transformed)
    PlotView view;
    ImVec2 plot_min, plot_max;  // screen rectangle of the plot area (inside the axes)
    int plot_width_px = 0;    // pixel columns of the plot area
    std::size_t vertices = 0; // polyline vertices submitted, all series
    std::size_t points_in_view = 0;
    bool log_y = false;       // y was drawn on a log scale (view.y_lo / y_hi are log10)
    int y_ticks = 0;          // labelled y ticks drawn
};

LinePlotResult line_plot(const char* id, const PlotSeries* series, int series_count,
                         const LinePlotOptions& opts = {});

}  // namespace tvis::widgets
