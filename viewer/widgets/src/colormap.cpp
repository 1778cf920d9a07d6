#include "tvis/widgets/colormap.h"

#include <algorithm>
#include <cmath>

namespace tvis::widgets {
namespace {

// Anchor tables, evenly spaced in t. Chosen by hand so that CIE L* rises by
// about 7.6 per step (sequential: 14.9 .. 90.9) or rises from the centre
// (10.4) outwards to 78 (cool end) and 82 (warm end) (diverging). Rounding to
// 8 bits can flatten L* between neighbouring samples by a few hundredths; the
// tests check the rise on 256 interpolated samples.
constexpr Rgb8 kSequential[] = {
    {68, 1, 84},    {72, 36, 117},  {65, 68, 135},  {53, 95, 141},  {42, 120, 142}, {33, 145, 140},
    {34, 168, 132}, {68, 191, 112}, {122, 209, 81}, {189, 223, 38}, {253, 231, 37},
};
constexpr Rgb8 kDiverging[] = {
    {140, 200, 250}, {85, 150, 225}, {45, 95, 175},  {32, 50, 95},    {28, 28, 32},
    {100, 40, 30},   {185, 75, 40},  {230, 135, 75}, {250, 195, 130},
};

template <std::size_t N>
Rgb8 interpolate(const Rgb8 (&table)[N], double t) {
    if (!(t > 0.0)) return table[0];  // also catches NaN
    if (t >= 1.0) return table[N - 1];
    const double pos = t * static_cast<double>(N - 1);
    const std::size_t i = static_cast<std::size_t>(pos);
    const double f = pos - static_cast<double>(i);
    const Rgb8 a = table[i], b = table[i + 1];
    auto mix = [f](std::uint8_t x, std::uint8_t y) {
        return static_cast<std::uint8_t>(std::lround(x + (y - x) * f));
    };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

double srgb_to_linear(std::uint8_t c) {
    const double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

}  // namespace

Rgb8 colormap_rgb(Colormap map, double t) {
    return map == Colormap::Sequential ? interpolate(kSequential, t) : interpolate(kDiverging, t);
}

ImU32 colormap_sample(Colormap map, double t) {
    const Rgb8 c = colormap_rgb(map, t);
    return IM_COL32(c.r, c.g, c.b, 255);
}

double perceived_lightness(Rgb8 c) {
    const double y = 0.2126 * srgb_to_linear(c.r) + 0.7152 * srgb_to_linear(c.g) + 0.0722 * srgb_to_linear(c.b);
    return y <= 216.0 / 24389.0 ? y * 24389.0 / 27.0 : 116.0 * std::cbrt(y) - 16.0;
}

ColorRange color_range_of(ValueSpan values, bool symmetric) {
    double lo = INFINITY, hi = -INFINITY;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        if (!std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (lo > hi) return symmetric ? ColorRange{-1.0, 1.0} : ColorRange{0.0, 1.0};
    if (symmetric) {
        double m = std::max(std::fabs(lo), std::fabs(hi));
        if (m == 0.0) m = 1.0;
        return {-m, m};
    }
    return {lo, hi};
}

double color_range_t(ColorRange range, double v) {
    double lo = range.lo, hi = range.hi;
    if (lo > hi) std::swap(lo, hi);
    if (!(hi > lo)) return 0.5;
    const double t = (v - lo) / (hi - lo);
    return std::clamp(t, 0.0, 1.0);
}

namespace {

// colormap_sample at t = i / (kLutSize - 1): per-cell colouring of large
// heatmaps is a table lookup, not an interpolation.
constexpr int kLutSize = 1024;

struct Lut {
    ImU32 colors[kLutSize];
    explicit Lut(Colormap map) {
        for (int i = 0; i < kLutSize; ++i) colors[i] = colormap_sample(map, static_cast<double>(i) / (kLutSize - 1));
    }
};

}  // namespace

ImU32 colormap_color(Colormap map, ColorRange range, double v) {
    if (std::isnan(v)) return kNanColor;
    if (std::isinf(v)) return kInfColor;
    static const Lut sequential(Colormap::Sequential), diverging(Colormap::Diverging);
    const Lut& lut = map == Colormap::Sequential ? sequential : diverging;
    const double t = color_range_t(range, v);
    return lut.colors[static_cast<int>(t * (kLutSize - 1) + 0.5)];
}

}  // namespace tvis::widgets
