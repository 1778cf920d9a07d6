#include "tvis/widgets/histogram.h"

#include <algorithm>
#include <utility>
#include <vector>
#include <cmath>
#include <string>

#include "tvis/widgets/axis_ticks.h"
#include "tvis/widgets/format_number.h"
#include "widget_style.h"

namespace tvis::widgets {
namespace {

using detail::kPad;

double bar_value(double count, bool log_counts) {
    if (!std::isfinite(count) || count <= 0.0) return 0.0;
    return log_counts ? std::log10(1.0 + count) : count;
}

}  // namespace

void histogram_counts(ValueSpan values, int bins, double lo, double hi, std::vector<double>* counts) {
    if (!counts) return;
    counts->clear();
    if (bins < 1 || !(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return;
    counts->assign(static_cast<std::size_t>(bins), 0.0);
    const double scale = bins / (hi - lo);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        if (!std::isfinite(v) || v < lo || v > hi) continue;
        const int b = std::min(bins - 1, static_cast<int>((v - lo) * scale));
        (*counts)[static_cast<std::size_t>(b)] += 1.0;
    }
}

HistogramResult histogram(const char* id, ValueSpan counts, double lo, double hi, const HistogramOptions& opts) {
    HistogramResult res;
    ImGui::PushID(id);
    const ImVec2 size = detail::resolve_size(opts.size, 160.0f, ImVec2(80.0f, 60.0f));
    const ImVec2 pos = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##hist", size);
    const bool item_hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float th = ImGui::GetTextLineHeight();

    const float left = ImGui::CalcTextSize("888k").x + detail::kTickLen + 2.0f * kPad;
    const ImVec2 mn(std::floor(pos.x + left), std::floor(pos.y + kPad + th));
    const ImVec2 mx(std::floor(pos.x + size.x - kPad), std::floor(pos.y + size.y - th - detail::kTickLen - 2.0f * kPad));
    res.plot_min = mn;
    res.plot_max = mx;
    dl->AddRectFilled(mn, mx, detail::kFrameBg);
    const int bins = static_cast<int>(std::min<std::size_t>(counts.size(), 1u << 24));
    const bool valid = bins > 0 && hi > lo && std::isfinite(lo) && std::isfinite(hi) && mx.x > mn.x && mx.y > mn.y;
    if (!valid) {
        dl->AddRect(ImVec2(mn.x - 1, mn.y - 1), ImVec2(mx.x + 1, mx.y + 1), detail::kFrameBorder);
        ImGui::PopID();
        return res;
    }

    double top = 0.0, max_count = 0.0;
    for (int i = 0; i < bins; ++i) {
        top = std::max(top, bar_value(counts[static_cast<std::size_t>(i)], opts.log_counts));
        if (std::isfinite(counts[static_cast<std::size_t>(i)])) max_count = std::max(max_count, counts[static_cast<std::size_t>(i)]);
    }
    if (top <= 0.0) top = 1.0;
    const float w = mx.x - mn.x, h = mx.y - mn.y;
    const float bin_w = w / bins;
    const ImU32 color = opts.bar_color ? opts.bar_color : detail::kBarColor;
    auto bar_top = [&](double v) { return mx.y - static_cast<float>(v / top) * h; };

    // Bars: one per bin, or the highest bin per pixel column when bins are thinner than a pixel.
    const int per_col = bin_w >= 1.0f ? 1 : static_cast<int>(std::ceil(1.0f / bin_w));
    const float gap = bin_w >= 4.0f ? 1.0f : 0.0f;
    for (int b0 = 0; b0 < bins; b0 += per_col) {
        const int b1 = std::min(bins, b0 + per_col);
        double v = 0.0;
        for (int b = b0; b < b1; ++b) v = std::max(v, bar_value(counts[static_cast<std::size_t>(b)], opts.log_counts));
        if (v <= 0.0) continue;
        dl->AddRectFilled(ImVec2(mn.x + b0 * bin_w, bar_top(v)), ImVec2(mn.x + b1 * bin_w - gap, mx.y), color);
    }

    // x axis: ticks in value space; y: the largest count at the top.
    const std::vector<double> xt = nice_ticks(lo, hi, std::max(2, static_cast<int>(w / 90.0f)));
    const std::vector<std::string> xl = tick_labels(xt);
    for (std::size_t i = 0; i < xt.size(); ++i) {
        const float x = std::floor(mn.x + static_cast<float>((xt[i] - lo) / (hi - lo)) * w) + 0.5f;
        dl->AddLine(ImVec2(x, mx.y), ImVec2(x, mx.y + detail::kTickLen), detail::kAxisText);
        // Centred on its tick, but inside the widget: the ticks at the ends
        // of the range sit on the frame's edges.
        const float tw = ImGui::CalcTextSize(xl[i].c_str()).x;
        const float tx = std::max(pos.x, std::min(x - tw * 0.5f, pos.x + size.x - tw));
        dl->AddText(ImVec2(tx, mx.y + detail::kTickLen + 1.0f), detail::kAxisText, xl[i].c_str());
    }
    const std::string top_label = format_number(max_count);
    dl->AddText(ImVec2(mn.x - detail::kTickLen - 2.0f - ImGui::CalcTextSize(top_label.c_str()).x, mn.y - th * 0.5f),
                detail::kAxisText, top_label.c_str());
    dl->AddText(ImVec2(mn.x - detail::kTickLen - 2.0f - ImGui::CalcTextSize("0").x, mx.y - th), detail::kAxisText, "0");
    if (opts.log_counts) dl->AddText(ImVec2(mn.x + kPad, mn.y), detail::kAxisText, "log");

    // Mark labels sit right of their line, or left of it when that would
    // cover an earlier label (the mean next to 0), else after the earlier ones.
    std::vector<std::pair<float, float>> placed;  // label extents [x0, x1)
    auto free_at = [&](float x0, float x1) {
        for (const auto& p : placed)
            if (x0 < p.second + 3.0f && p.first < x1 + 3.0f) return false;
        return true;
    };
    for (int k = 0; opts.marks && k < opts.mark_count; ++k) {
        const HistogramMark& mk = opts.marks[k];
        if (!(mk.value >= lo && mk.value <= hi)) continue;
        const float x = std::floor(mn.x + static_cast<float>((mk.value - lo) / (hi - lo)) * w) + 0.5f;
        const ImU32 c = mk.color ? mk.color : IM_COL32(255, 220, 120, 255);
        dl->AddLine(ImVec2(x, mn.y), ImVec2(x, mx.y), c, 1.5f);
        if (!mk.label) continue;
        const float tw = ImGui::CalcTextSize(mk.label).x;
        float x0 = x + 2.0f;
        if (!free_at(x0, x0 + tw)) {
            x0 = x - 2.0f - tw;
            if (!free_at(x0, x0 + tw))
                for (const auto& p : placed) x0 = std::max(x0, p.second + 4.0f);
        }
        placed.emplace_back(x0, x0 + tw);
        dl->AddText(ImVec2(x0, mn.y - th), c, mk.label);
    }

    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if (item_hovered && mouse.x >= mn.x && mouse.x < mx.x && mouse.y >= mn.y - th && mouse.y < mx.y) {
        res.hovered = true;
        res.bin = std::clamp(static_cast<int>((mouse.x - mn.x) / bin_w), 0, bins - 1);
        const double bw = (hi - lo) / bins;
        res.bin_lo = lo + res.bin * bw;
        res.bin_hi = res.bin == bins - 1 ? hi : lo + (res.bin + 1) * bw;
        res.count = counts[static_cast<std::size_t>(res.bin)];
        const float x0 = mn.x + res.bin * bin_w;
        dl->AddRectFilled(ImVec2(x0, bar_top(bar_value(res.count, opts.log_counts))),
                          ImVec2(x0 + std::max(bin_w, 1.0f), mx.y), detail::kBarHover);
        if (opts.show_tooltip) {
            char a[48], b[48], c[48];
            format_exact(a, sizeof a, res.bin_lo);
            format_exact(b, sizeof b, res.bin_hi);
            format_exact(c, sizeof c, res.count);
            ImGui::SetTooltip("bin %d: [%s, %s%s\ncount %s", res.bin, a, b, res.bin == bins - 1 ? "]" : ")", c);
        }
    }
    dl->AddRect(ImVec2(mn.x - 1, mn.y - 1), ImVec2(mx.x + 1, mx.y + 1), detail::kFrameBorder);
    ImGui::PopID();
    return res;
}

}  // namespace tvis::widgets
