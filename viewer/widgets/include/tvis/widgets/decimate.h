// decimate.h: min/max-per-pixel-column reduction of a series, so a plot of
// 10^6 points submits about 2 x width vertices and still shows every spike.
//
// Usage:
//   std::vector<DecimatedVertex> v;
//   DecimateStats s = decimate_min_max(xs, ys, x_lo, x_hi, width_px, false, &v);
//   // v: polyline in data coordinates; a vertex with NaN y breaks the line.
//
// Contracts:
// - xs empty: x of point i is i. Otherwise xs.size() must equal ys.size()
//   (the shorter length is used) and xs must be non-decreasing; unsorted x
//   gives a wrong drawing but never an out-of-bounds read.
// - The view [x_lo, x_hi) is split into `columns` equal pixel columns.
//   Per column at most 2 vertices are emitted: the column's points themselves
//   when it holds one or two, else its minimum and maximum, in the order they
//   occur. So every column's true min and max are vertices. In addition, the
//   nearest point left of the view and right of the view are emitted (so the
//   line reaches the edges): at most 2 * columns + 2 vertices in all, plus
//   break markers.
// - Points with non-finite x or y (or y <= 0 when log_y) are skipped; a
//   column holding only such points emits one break marker (NaN y).
// - log_y: y values are emitted as log10(y).
#pragma once

#include <cstddef>
#include <vector>

#include "tvis/widgets/value_span.h"

namespace tvis::widgets {

struct DecimatedVertex {
    double x;
    double y;  // NaN: break the polyline here
    std::size_t index;  // index of the source point (unspecified for breaks)
};

struct DecimateStats {
    std::size_t points_visited = 0;  // source points inside the view
    std::size_t vertices = 0;        // emitted vertices, breaks excluded
    double y_min = 0.0, y_max = 0.0; // over emitted vertices (valid if vertices > 0)
};

DecimateStats decimate_min_max(ValueSpan xs, ValueSpan ys, double x_lo, double x_hi, int columns, bool log_y,
                               std::vector<DecimatedVertex>* out);

// Index range [first, last) of points with x in [x_lo, x_hi] for a
// non-decreasing (or implicit, when xs is empty) x of length n.
void visible_index_range(ValueSpan xs, std::size_t n, double x_lo, double x_hi, std::size_t* first,
                         std::size_t* last);

}  // namespace tvis::widgets
