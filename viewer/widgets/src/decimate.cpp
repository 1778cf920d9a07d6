#include "tvis/widgets/decimate.h"

#include <algorithm>
#include <cmath>

namespace tvis::widgets {
namespace {

double x_at(ValueSpan xs, std::size_t i) { return xs.empty() ? static_cast<double>(i) : xs[i]; }

bool drawable(double y, bool log_y) { return std::isfinite(y) && (!log_y || y > 0.0); }

// Running aggregate of the points of one pixel column; y values are raw
// (log10 is applied when emitting: it preserves min and max).
struct Column {
    int col = -1;
    std::size_t count = 0;  // drawable points
    bool any = false;       // any point (drawable or not)
    DecimatedVertex first{}, second{}, lo{}, hi{};

    void reset(int c) { *this = Column{}; col = c; }
    void add(double x, double y, std::size_t i) {
        const DecimatedVertex v{x, y, i};
        if (count == 0) first = lo = hi = v;
        if (count == 1) second = v;
        if (y < lo.y) lo = v;
        if (y > hi.y) hi = v;
        ++count;
    }
};

void emit(std::vector<DecimatedVertex>* out, DecimateStats* s, DecimatedVertex v, bool log_y) {
    if (log_y && !std::isnan(v.y)) v.y = std::log10(v.y);
    out->push_back(v);
    if (std::isnan(v.y)) return;
    if (s->vertices == 0) s->y_min = s->y_max = v.y;
    s->y_min = std::min(s->y_min, v.y);
    s->y_max = std::max(s->y_max, v.y);
    ++s->vertices;
}

void flush(const Column& c, std::vector<DecimatedVertex>* out, DecimateStats* s, bool log_y) {
    if (c.col < 0 || !c.any) return;
    if (c.count == 0) {
        emit(out, s, {NAN, NAN, 0}, false);
    } else if (c.count == 1) {
        emit(out, s, c.first, log_y);
    } else if (c.count == 2) {
        emit(out, s, c.first, log_y);
        emit(out, s, c.second, log_y);
    } else if (c.lo.index <= c.hi.index) {
        emit(out, s, c.lo, log_y);
        if (c.hi.index != c.lo.index) emit(out, s, c.hi, log_y);
    } else {
        emit(out, s, c.hi, log_y);
        emit(out, s, c.lo, log_y);
    }
}

// Fast path for implicit x: column c holds the contiguous index range
// [bound(c), bound(c + 1)), found with the same formula as the general path.
template <class T>
void decimate_implicit(const T* y, std::size_t first, std::size_t last, double x_lo, double px_per_x, int columns,
                       bool log_y, std::vector<DecimatedVertex>* out, DecimateStats* stats) {
    auto column_of = [&](std::size_t i) {
        return std::clamp(static_cast<int>((static_cast<double>(i) - x_lo) * px_per_x), 0, columns - 1);
    };
    std::size_t i = first;
    while (i < last) {
        const int c = column_of(i);
        // End of this column: estimate, then correct by the exact formula.
        std::size_t end = c == columns - 1 ? last
                                           : static_cast<std::size_t>(std::max(
                                                 static_cast<double>(i + 1), std::ceil(x_lo + (c + 1) / px_per_x)));
        end = std::min(end, last);
        while (end > i + 1 && column_of(end - 1) != c) --end;
        while (end < last && column_of(end) == c) ++end;
        // Tight scan on the raw type: count, first two, min and max.
        std::size_t count = 0, i0 = 0, i1 = 0, lo_i = 0, hi_i = 0;
        T lo_v = 0, hi_v = 0;
        for (std::size_t k = i; k < end; ++k) {
            const T v = y[k];
            if (!(std::isfinite(v) && (!log_y || v > 0))) continue;
            if (count == 0) {
                i0 = lo_i = hi_i = k;
                lo_v = hi_v = v;
            } else {
                if (count == 1) i1 = k;
                if (v < lo_v) lo_v = v, lo_i = k;
                if (v > hi_v) hi_v = v, hi_i = k;
            }
            ++count;
        }
        Column col;
        col.reset(c);
        col.any = true;
        col.count = count;
        auto vertex = [&](std::size_t k) { return DecimatedVertex{static_cast<double>(k), static_cast<double>(y[k]), k}; };
        if (count > 0) {
            col.first = vertex(i0);
            col.second = vertex(count > 1 ? i1 : i0);
            col.lo = vertex(lo_i);
            col.hi = vertex(hi_i);
        }
        stats->points_visited += end - i;
        flush(col, out, stats, log_y);
        i = end;
    }
}

}  // namespace

void visible_index_range(ValueSpan xs, std::size_t n, double x_lo, double x_hi, std::size_t* first,
                         std::size_t* last) {
    if (xs.empty()) {
        const double a = std::ceil(x_lo), b = std::floor(x_hi);
        *first = a <= 0 ? 0 : (a >= static_cast<double>(n) ? n : static_cast<std::size_t>(a));
        *last = b < 0 ? 0 : (b >= static_cast<double>(n) - 1 ? n : static_cast<std::size_t>(b) + 1);
        if (*last < *first) *last = *first;
        return;
    }
    // Binary searches; NaN x compares false and so behaves like "large".
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (xs[mid] < x_lo) lo = mid + 1; else hi = mid;
    }
    *first = lo;
    hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (xs[mid] <= x_hi) lo = mid + 1; else hi = mid;
    }
    *last = lo;
}

DecimateStats decimate_min_max(ValueSpan xs, ValueSpan ys, double x_lo, double x_hi, int columns, bool log_y,
                               std::vector<DecimatedVertex>* out) {
    DecimateStats stats;
    if (!out) return stats;
    out->clear();
    std::size_t n = ys.size();
    if (!xs.empty()) n = std::min(n, xs.size());
    if (n == 0 || columns <= 0 || !(x_hi > x_lo) || !std::isfinite(x_lo) || !std::isfinite(x_hi)) return stats;

    std::size_t first = 0, last = 0;
    visible_index_range(xs, n, x_lo, x_hi, &first, &last);

    // The nearest drawable neighbour left of the view connects the line to the edge.
    for (std::size_t i = first; i-- > 0 && first - i <= 64;) {
        const double y = ys[i], x = x_at(xs, i);
        if (drawable(y, log_y) && std::isfinite(x)) {
            emit(out, &stats, {x, y, i}, log_y);
            break;
        }
    }

    const double px_per_x = columns / (x_hi - x_lo);
    if (xs.empty() && ys.type() == ValueSpan::Type::F32) {
        decimate_implicit(static_cast<const float*>(ys.data()), first, last, x_lo, px_per_x, columns, log_y, out, &stats);
    } else if (xs.empty()) {
        decimate_implicit(static_cast<const double*>(ys.data()), first, last, x_lo, px_per_x, columns, log_y, out, &stats);
    } else {
        Column col;
        for (std::size_t i = first; i < last; ++i) {
            const double x = xs[i];
            if (!std::isfinite(x)) continue;
            const int c = std::clamp(static_cast<int>((x - x_lo) * px_per_x), 0, columns - 1);  // x_hi: last column
            if (c != col.col) {
                flush(col, out, &stats, log_y);
                col.reset(c);
            }
            col.any = true;
            ++stats.points_visited;
            const double y = ys[i];
            if (drawable(y, log_y)) col.add(x, y, i);
        }
        flush(col, out, &stats, log_y);
    }

    for (std::size_t i = last; i < n && i - last < 64; ++i) {
        const double y = ys[i], x = x_at(xs, i);
        if (drawable(y, log_y) && std::isfinite(x)) {
            emit(out, &stats, {x, y, i}, log_y);
            break;
        }
    }
    return stats;
}

}  // namespace tvis::widgets
