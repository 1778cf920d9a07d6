// axis_ticks.h: "nice" tick positions (1, 2, 5 x 10^k steps) and their labels.
//
// Usage:
//   std::vector<double> t = nice_ticks(0.0, 0.97, 6);    // 0, 0.2, 0.4, 0.6, 0.8
//   std::vector<std::string> l = tick_labels(t);           // "0", "0.2", ...
//
// Contracts:
// - nice_ticks returns at most max_ticks (>= 2) ascending values inside
//   [min(lo,hi), max(lo,hi)], evenly spaced by 1, 2 or 5 x 10^k. A degenerate
//   or non-finite range returns {} (or {lo} when lo == hi and finite).
// - nice_integer_ticks is nice_ticks for a count (steps, epochs): only whole
//   numbers, so a range of 0..2 gets 0, 1, 2 and never 0.2, 0.4, ...
// - tick_labels uses format_number with the fewest significant digits (>= 3)
//   that make neighbouring labels distinct, so 1000.1 / 1000.2 never both
//   read "1k". A tick within 1e-9 steps of 0 is written "0".
#pragma once

#include <string>
#include <vector>

namespace tvis::widgets {

std::vector<double> nice_ticks(double lo, double hi, int max_ticks);
std::vector<double> nice_integer_ticks(double lo, double hi, int max_ticks);
std::vector<std::string> tick_labels(const std::vector<double>& ticks);

}  // namespace tvis::widgets
