// format_number.h: how every widget writes numbers.
//
// Usage:
//   format_number(0.000123)   -> "1.23e-04"   (labels, ticks, colour bars)
//   format_number(12345)      -> "12.3k"
//   format_exact(0.1f)        -> "0.100000001" (hover tooltips, tables, copy)
//
// Rules of format_number (3 significant digits unless asked otherwise):
// - 0 -> "0"; NaN -> "nan"; +Inf -> "inf"; -Inf -> "-inf".
// - Rounding happens first, so 999.96 becomes "1k", never "1e+03" or "1000".
// - 1e-3 <= |v| < 1e3: plain decimal, trailing zeros dropped ("0.5", "12.3").
// - 1e3 <= |v| < 1e15: SI suffix k, M, G, T ("1.5k", "250M").
// - otherwise: scientific with a two-digit exponent ("1.23e-05", "4.2e+18").
// format_exact prints "%.9g" (round-trips a float; doubles get 9 digits).
// Neither function allocates beyond the returned std::string.
#pragma once

#include <cstddef>
#include <string>

namespace tvis::widgets {

// Writes v with `significant` digits (clamped to 1..17) into buf (NUL
// terminated, truncated to size). Returns the length written (excluding NUL).
int format_number(char* buf, std::size_t size, double v, int significant = 3);
std::string format_number(double v, int significant = 3);

// "%.9g", with "nan" / "inf" / "-inf" spelled the same on every platform.
int format_exact(char* buf, std::size_t size, double v);
std::string format_exact(double v);

}  // namespace tvis::widgets
