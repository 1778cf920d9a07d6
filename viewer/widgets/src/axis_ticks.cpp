#include "tvis/widgets/axis_ticks.h"

#include <algorithm>
#include <cmath>

#include "tvis/widgets/format_number.h"

namespace tvis::widgets {

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
    std::vector<double> out;
    if (!std::isfinite(lo) || !std::isfinite(hi)) return out;
    if (lo > hi) std::swap(lo, hi);
    if (lo == hi) return {lo};
    if (max_ticks < 2) max_ticks = 2;

    const double raw = (hi - lo) / (max_ticks - 1);
    const double p10 = std::pow(10.0, std::floor(std::log10(raw)));
    double step = p10 * 10.0;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (p10 * m >= raw) {
            step = p10 * m;
            break;
        }
    }
    if (!(step > 0.0) || !std::isfinite(step)) return out;
    // Step up until the count fits (guards rounding at the boundaries).
    for (int guard = 0; guard < 4; ++guard) {
        const double first = std::ceil(lo / step - 1e-9) * step;
        out.clear();
        for (int i = 0;; ++i) {
            double t = first + i * step;
            if (t > hi + step * 1e-9) break;
            if (std::fabs(t) < step * 1e-9) t = 0.0;
            out.push_back(t);
            if (static_cast<int>(out.size()) > max_ticks) break;
        }
        if (static_cast<int>(out.size()) <= max_ticks) break;
        step *= 2.0;
    }
    return out;
}

std::vector<double> nice_integer_ticks(double lo, double hi, int max_ticks) {
    std::vector<double> out = nice_ticks(lo, hi, max_ticks);
    if (out.size() >= 2 && out[1] - out[0] >= 1.0) return out;  // steps of 1, 2, 5, ... already whole
    out.clear();
    if (!std::isfinite(lo) || !std::isfinite(hi)) return out;
    if (lo > hi) std::swap(lo, hi);
    // Fewer whole numbers than max_ticks lie in a range this narrow: each of them.
    for (double t = std::ceil(lo - 1e-9); t <= hi + 1e-9; t += 1.0) out.push_back(t == 0.0 ? 0.0 : t);
    return out;
}

std::vector<std::string> tick_labels(const std::vector<double>& ticks) {
    std::vector<std::string> labels(ticks.size());
    for (int sig = 3; sig <= 12; ++sig) {
        for (std::size_t i = 0; i < ticks.size(); ++i) labels[i] = format_number(ticks[i], sig);
        bool distinct = true;
        for (std::size_t i = 1; i < labels.size(); ++i)
            if (labels[i] == labels[i - 1]) distinct = false;
        if (distinct) break;
    }
    return labels;
}

}  // namespace tvis::widgets
