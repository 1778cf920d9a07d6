// histogram.h: bin counts over [lo, hi] as bars, with marks (mean, 0) and
// hover showing a bin's range and count.
//
// Usage:
//   std::vector<double> counts;
//   histogram_counts(ValueSpan(weights), 64, lo, hi, &counts);  // or recorded counts
//   HistogramMark marks[] = {{mean, "mean", 0}, {0.0, "0", 0}};
//   HistogramOptions o; o.marks = marks; o.mark_count = 2;
//   HistogramResult h = histogram("##w", ValueSpan(counts), lo, hi, o);
//
// Contracts:
// - Bin i covers [lo + i * w, lo + (i + 1) * w), w = (hi - lo) / bins; the
//   last bin includes hi. hi <= lo or a non-finite bound draws an empty frame.
// - Negative or non-finite counts draw as 0 but are reported as given.
// - More bins than pixel columns: each column draws the highest of its bins;
//   hover still reports the exact bin under the mouse.
// - log_counts: bar heights are log10(1 + count).
// - Marks outside [lo, hi] are not drawn.
#pragma once

#include <vector>

#include "imgui.h"
#include "tvis/widgets/value_span.h"

namespace tvis::widgets {

struct HistogramMark {
    double value = 0.0;
    const char* label = nullptr;  // drawn at the top of the mark; may be null
    ImU32 color = 0;              // 0: a light default
};

struct HistogramOptions {
    ImVec2 size = ImVec2(0.0f, 0.0f);  // x <= 0: available width; y <= 0: 160 px
    bool log_counts = false;
    const HistogramMark* marks = nullptr;
    int mark_count = 0;
    ImU32 bar_color = 0;  // 0: default blue
    bool show_tooltip = true;
};

struct HistogramResult {
    bool hovered = false;  // mouse over a bin
    int bin = -1;
    double bin_lo = 0.0, bin_hi = 0.0;
    double count = 0.0;
    ImVec2 plot_min, plot_max;  // screen rectangle of the bars' area
};

HistogramResult histogram(const char* id, ValueSpan counts, double lo, double hi, const HistogramOptions& opts = {});

// Counts finite values into `bins` equal bins over [lo, hi] (values outside
// are not counted; hi goes to the last bin). bins < 1 or hi <= lo gives {}.
void histogram_counts(ValueSpan values, int bins, double lo, double hi, std::vector<double>* counts);

}  // namespace tvis::widgets
