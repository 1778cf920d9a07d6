#include "tvis/widgets/axis_ticks.h"

#include <algorithm>
#include <cmath>

#include "tvis/widgets/format_number.h"

namespace tvis::widgets {
namespace {

constexpr double kMantissas[3] = {1.0, 2.0, 5.0};

// A 1-2-5 step: kMantissas[m] x 10^e, kept as integers so that ticks are
// computed as k x mantissa / 10^-e (0.3, not 0.30000000000000004).
struct Step {
    int m = 0;
    int e = 0;
    double value() const { return scaled(kMantissas[m]); }
    double scaled(double k) const { return e < 0 ? k / std::pow(10.0, -e) : k * std::pow(10.0, e); }
    void grow() {
        if (++m == 3) m = 0, ++e;
    }
};

// The largest 1-2-5 step not above x (x > 0, finite).
Step step_at_most(double x) {
    Step s;
    s.e = static_cast<int>(std::floor(std::log10(x)));
    s.m = 0;
    for (int m = 2; m >= 0; --m) {
        if (Step{m, s.e}.value() <= x) {
            s.m = m;
            break;
        }
    }
    return s;
}

// The multiples of s inside [lo, hi] (a relative slack of 1e-9 steps at both ends).
double first_multiple(double lo, const Step& s) { return std::ceil(lo / s.value() - 1e-9); }
double last_multiple(double hi, const Step& s) { return std::floor(hi / s.value() + 1e-9); }

std::vector<double> multiples(double lo, double hi, const Step& s) {
    std::vector<double> out;
    const double k0 = first_multiple(lo, s), k1 = last_multiple(hi, s);
    for (double k = k0; k <= k1; k += 1.0) out.push_back(k == 0.0 ? 0.0 : s.scaled(k * kMantissas[s.m]));
    return out;
}

// m x 10^e for every mantissa 1, 2, 5 and decade that lies in [lo, hi].
std::vector<double> one_two_five(double lo, double hi) {
    std::vector<double> out;
    const int e0 = static_cast<int>(std::floor(std::log10(lo))), e1 = static_cast<int>(std::ceil(std::log10(hi)));
    for (int e = e0; e <= e1; ++e)
        for (int m = 0; m < 3; ++m) {
            const double v = Step{m, e}.value();
            if (v >= lo * (1.0 - 1e-12) && v <= hi * (1.0 + 1e-12)) out.push_back(v);
        }
    return out;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
    if (lo > hi) std::swap(lo, hi);
    if (lo == hi) return {lo};
    if (max_ticks < 2) max_ticks = 2;
    const double range = hi - lo;
    if (!std::isfinite(range)) return {};
    // Below range / (max_ticks + 1) every step has more than max_ticks ticks;
    // from range / (max_ticks - 1) up every step fits: a few steps to try.
    Step s = step_at_most(range / (max_ticks + 1));
    for (int guard = 0; guard < 12; ++guard, s.grow()) {
        if (!std::isfinite(s.value()) || !(s.value() > 0.0)) return {};
        if (last_multiple(hi, s) - first_multiple(lo, s) + 1.0 <= max_ticks) return multiples(lo, hi, s);
    }
    return {};
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

std::vector<double> log_ticks(double lo, double hi, int max_ticks) {
    if (!(lo > 0.0) || !std::isfinite(hi) || !(hi > lo)) return {};
    if (max_ticks < 2) max_ticks = 2;
    if (hi < lo * 10.0) return nice_ticks(lo, hi, max_ticks);  // under a decade: the values' own steps
    std::vector<double> out = one_two_five(lo, hi);
    if (static_cast<int>(out.size()) <= max_ticks) return out;
    out.clear();
    for (double d : nice_integer_ticks(std::log10(lo), std::log10(hi), max_ticks))
        out.push_back(d < 0.0 ? 1.0 / std::pow(10.0, -d) : std::pow(10.0, d));
    return out;
}

bool wants_log_scale(double lo, double hi) { return lo > 0.0 && std::isfinite(hi) && hi >= kLogScaleRatio * lo; }

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
