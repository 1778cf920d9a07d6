// axis_ticks.h: "nice" tick positions (1, 2, 5 x 10^k steps), log-axis ticks,
// the choice of a log scale, and tick labels.
//
// Usage:
//   std::vector<double> t = nice_ticks(0.0, 0.97, 6);    // 0, 0.2, 0.4, 0.6, 0.8
//   std::vector<std::string> l = tick_labels(t);           // "0", "0.2", ...
//   if (wants_log_scale(y_min, y_max)) ticks = log_ticks(y_min, y_max, 8);  // 0.01, 0.1, 1, ...
//
// Contracts:
// - nice_ticks returns at most max_ticks (>= 2) ascending values inside
//   [min(lo,hi), max(lo,hi)], evenly spaced by 1, 2 or 5 x 10^k: the smallest
//   such step whose ticks fit in max_ticks, so a range gets as many ticks as
//   the caller has room for (2.28..2.37 with room for 7: 2.28, 2.3, ... 2.36,
//   never 2.3, 2.35 alone). A degenerate or non-finite range returns {} (or
//   {lo} when lo == hi and finite).
// - nice_integer_ticks is nice_ticks for a count (steps, epochs): only whole
//   numbers, so a range of 0..2 gets 0, 1, 2 and never 0.2, 0.4, ...
// - log_ticks(lo, hi, max_ticks) are the values (not their logs) to tick on a
//   log axis over [lo, hi], 0 < lo < hi, at most max_ticks, ascending:
//   1, 2, 5 x 10^k when they fit, else whole decades (every 1, 2, 5, ...
//   decades); under one decade, nice_ticks of the values. {} for a range
//   that is not positive and finite.
// - wants_log_scale(lo, hi): true when 0 < lo and hi >= kLogScaleRatio * lo
//   (the values span two decades or more: a linear axis would flatten all
//   but the largest of them).
// - tick_labels uses format_number with the fewest significant digits (>= 3)
//   that make neighbouring labels distinct, so 1000.1 / 1000.2 never both
//   read "1k". A tick within 1e-9 steps of 0 is written "0".
#pragma once

#include <string>
#include <vector>

namespace tvis::widgets {

constexpr double kLogScaleRatio = 100.0;

std::vector<double> nice_ticks(double lo, double hi, int max_ticks);
std::vector<double> nice_integer_ticks(double lo, double hi, int max_ticks);
std::vector<double> log_ticks(double lo, double hi, int max_ticks);
bool wants_log_scale(double lo, double hi);
std::vector<std::string> tick_labels(const std::vector<double>& ticks);

}  // namespace tvis::widgets
