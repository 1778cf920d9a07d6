// colormap.h: value -> colour for heatmaps, colour bars and coloured layers.
//
// Usage:
//   ColorRange r = color_range_of(values, /*symmetric=*/false);
//   ImU32 c = colormap_color(Colormap::Sequential, r, v);
//
// Colormaps (anchor tables in colormap.cpp, interpolated linearly in sRGB):
// - Sequential: dark violet -> blue -> green -> yellow, viridis-like; perceived
//   lightness (CIE L*) rises monotonically from t = 0 to t = 1.
// - Diverging: light blue (t = 0) -> near black (t = 0.5) -> light orange
//   (t = 1). The dark centre suits a dark theme: zero recedes, large |value|
//   stands out. Lightness rises monotonically from the centre to either end.
//   Use it with a symmetric range so 0 maps to the centre.
// Non-finite values never take a colormap colour: NaN is magenta
// (kNanColor), +/-Inf is white (kInfColor); no colormap contains either.
#pragma once

#include <cstdint>

#include "imgui.h"
#include "tvis/widgets/value_span.h"

namespace tvis::widgets {

enum class Colormap { Sequential, Diverging };

struct Rgb8 {
    std::uint8_t r = 0, g = 0, b = 0;
};

constexpr ImU32 kNanColor = IM_COL32(255, 0, 255, 255);
constexpr ImU32 kInfColor = IM_COL32(255, 255, 255, 255);

// The colormap at t in [0, 1] (t is clamped; a NaN t gives the t = 0 colour).
Rgb8 colormap_rgb(Colormap map, double t);
ImU32 colormap_sample(Colormap map, double t);

// CIE L* (0..100) of an sRGB colour: what "monotonic lightness" is measured in.
double perceived_lightness(Rgb8 c);

// The value range a colormap spans. lo == hi is allowed (everything maps to
// the middle). lo > hi is treated as swapped.
struct ColorRange {
    double lo = 0.0;
    double hi = 1.0;
};

// Min and max of the finite values (NaN/Inf ignored); {0, 1} when there are
// none. symmetric: {-m, m} with m = max |finite value| (m = 1 when all are 0).
ColorRange color_range_of(ValueSpan values, bool symmetric);

// Position of v in the range, in [0, 1]; 0.5 when lo == hi.
double color_range_t(ColorRange range, double v);

// The colour of value v: kNanColor / kInfColor for non-finite values. t is
// quantized to 1/1023 steps (a lookup table; endpoints and centre are exact).
ImU32 colormap_color(Colormap map, ColorRange range, double v);

}  // namespace tvis::widgets
