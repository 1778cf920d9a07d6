#include "tvis/widgets/format_number.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace tvis::widgets {
namespace {

int write_special(char* buf, std::size_t size, double v) {
    const char* s = std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
    return std::snprintf(buf, size, "%s", s);
}

// Removes trailing zeros (and a trailing '.') from the fraction in [begin, end).
// Returns the new end.
char* strip_fraction_zeros(char* begin, char* end) {
    char* dot = static_cast<char*>(std::memchr(begin, '.', static_cast<std::size_t>(end - begin)));
    if (!dot) return end;
    while (end > dot + 1 && end[-1] == '0') --end;
    if (end == dot + 1) --end;
    *end = '\0';
    return end;
}

}  // namespace

int format_number(char* buf, std::size_t size, double v, int significant) {
    if (!buf || size == 0) return 0;
    if (!std::isfinite(v)) return write_special(buf, size, v);
    if (v == 0.0) return std::snprintf(buf, size, "0");
    if (significant < 1) significant = 1;
    if (significant > 17) significant = 17;

    // Decimal exponent after rounding to `significant` digits.
    const double mag = std::fabs(v);
    int e = static_cast<int>(std::floor(std::log10(mag)));
    const double scale = std::pow(10.0, significant - 1 - e);
    const double rounded = std::round(mag * scale) / scale;
    if (rounded >= std::pow(10.0, e + 1)) ++e;

    char tmp[64];
    int n = 0;
    static const char kSuffix[] = {'k', 'M', 'G', 'T'};
    if (e >= -3 && e < 3) {
        const int decimals = significant - 1 - e > 0 ? significant - 1 - e : 0;
        n = std::snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
        n = static_cast<int>(strip_fraction_zeros(tmp, tmp + n) - tmp);
    } else if (e >= 3 && e < 15) {
        const int group = e / 3;  // 1..4
        const double scaled = v / std::pow(1000.0, group);
        const int e_in_group = e - 3 * group;  // 0..2
        const int decimals = significant - 1 - e_in_group > 0 ? significant - 1 - e_in_group : 0;
        n = std::snprintf(tmp, sizeof tmp, "%.*f", decimals, scaled);
        n = static_cast<int>(strip_fraction_zeros(tmp, tmp + n) - tmp);
        tmp[n++] = kSuffix[group - 1];
        tmp[n] = '\0';
    } else {
        n = std::snprintf(tmp, sizeof tmp, "%.*e", significant - 1, v);
        // Drop zeros in the mantissa ("1.50e-05" -> "1.5e-05").
        char* epos = std::strchr(tmp, 'e');
        if (epos) {
            char exp_part[16];
            std::snprintf(exp_part, sizeof exp_part, "%s", epos);
            char* mant_end = strip_fraction_zeros(tmp, epos);
            std::snprintf(mant_end, sizeof tmp - static_cast<std::size_t>(mant_end - tmp), "%s", exp_part);
            n = static_cast<int>(std::strlen(tmp));
        }
    }
    return std::snprintf(buf, size, "%s", tmp) < 0 ? 0 : static_cast<int>(std::strlen(buf));
}

std::string format_number(double v, int significant) {
    char buf[64];
    format_number(buf, sizeof buf, v, significant);
    return buf;
}

int format_exact(char* buf, std::size_t size, double v) {
    if (!buf || size == 0) return 0;
    if (!std::isfinite(v)) return write_special(buf, size, v);
    return std::snprintf(buf, size, "%.9g", v);
}

std::string format_exact(double v) {
    char buf[64];
    format_exact(buf, sizeof buf, v);
    return buf;
}

}  // namespace tvis::widgets
