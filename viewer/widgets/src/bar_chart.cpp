#include "tvis/widgets/bar_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "tvis/widgets/format_number.h"
#include "widget_style.h"

namespace tvis::widgets {
namespace {

using detail::kPad;

constexpr float kMaxAutoHeight = 320.0f;

// Display order: indices into values.
void display_order(ValueSpan values, bool sorted, std::vector<int>* order) {
    order->resize(values.size());
    std::iota(order->begin(), order->end(), 0);
    if (!sorted) return;
    std::stable_sort(order->begin(), order->end(), [&](int a, int b) {
        const double va = values[static_cast<std::size_t>(a)], vb = values[static_cast<std::size_t>(b)];
        if (std::isnan(va)) return false;
        if (std::isnan(vb)) return true;
        return va > vb;
    });
}

}  // namespace

BarChartResult bar_chart(const char* id, ValueSpan values, const char* const* labels, const BarChartOptions& opts) {
    BarChartResult res;
    const int n = static_cast<int>(std::min<std::size_t>(values.size(), 1u << 24));
    const float row_h = ImGui::GetTextLineHeight() + 4.0f;
    ImVec2 size = opts.size;
    if (size.y <= 0.0f) size.y = std::min(kMaxAutoHeight, std::max(1, n) * row_h + 2.0f * kPad);
    size = detail::resolve_size(size, size.y, ImVec2(80.0f, row_h));

    ImGui::PushID(id);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(kPad, kPad));
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::ColorConvertU32ToFloat4(detail::kFrameBg));
    ImGui::BeginChild("##bars", size, false);
    ImGui::PopStyleColor();
    ImGui::PopStyleVar();  // the padding is taken at BeginChild; tooltips keep the normal style
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0.0f));  // rows exactly row_h apart
    ImDrawList* dl = ImGui::GetWindowDrawList();

    static thread_local std::vector<int> order;
    display_order(values.sub(0, static_cast<std::size_t>(n)), opts.sorted, &order);

    // Label column: as wide as the widest label, at most 40% of the width.
    const float full_w = ImGui::GetContentRegionAvail().x;
    float label_w = 0.0f;
    char buf[64];
    for (int i = 0; i < n; ++i) {
        const char* l = labels ? labels[i] : (std::snprintf(buf, sizeof buf, "%d", i), buf);
        if (l) label_w = std::max(label_w, ImGui::CalcTextSize(l).x);
    }
    label_w = std::min(label_w, full_w * 0.4f);
    const float value_w = ImGui::CalcTextSize("-8.88e-88").x;
    double scale = 0.0;
    bool any_negative = false;
    for (int i = 0; i < n; ++i) {
        const double v = values[static_cast<std::size_t>(i)];
        if (!std::isfinite(v)) continue;
        scale = std::max(scale, std::fabs(v));
        any_negative = any_negative || v < 0.0;
    }
    if (scale == 0.0) scale = 1.0;
    const float bar_x0 = label_w + kPad;
    const float bar_span = std::max(8.0f, full_w - bar_x0 - value_w - kPad);
    // Zero sits at the left, or in the middle when there are negative bars.
    const float zero_x = any_negative ? bar_x0 + bar_span * 0.5f : bar_x0;
    const float half = any_negative ? bar_span * 0.5f : bar_span;

    const bool child_hovered = ImGui::IsWindowHovered();
    ImGuiListClipper clipper;
    clipper.Begin(n, row_h);
    while (clipper.Step()) {
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            const int i = order[static_cast<std::size_t>(row)];
            const double v = values[static_cast<std::size_t>(i)];
            const ImVec2 p = ImGui::GetCursorScreenPos();
            ImGui::PushID(row);
            ImGui::InvisibleButton("##row", ImVec2(full_w, row_h));
            const bool hov = child_hovered && ImGui::IsItemHovered();
            const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
            ImGui::PopID();
            if (hov) {
                res.hovered = true;
                res.index = i;
                res.value = v;
                res.clicked = clicked;
                dl->AddRectFilled(p, ImVec2(p.x + full_w, p.y + row_h), IM_COL32(255, 255, 255, 18));
            }
            const char* l = labels ? labels[i] : (std::snprintf(buf, sizeof buf, "%d", i), buf);
            if (l) {
                const float lw = ImGui::CalcTextSize(l).x;
                dl->PushClipRect(p, ImVec2(p.x + label_w, p.y + row_h), true);
                dl->AddText(ImVec2(p.x + label_w - lw, p.y + 2.0f), detail::kAxisText, l);  // right-aligned
                dl->PopClipRect();
            }
            float end_x = p.x + zero_x;
            if (std::isfinite(v)) {
                const float len = static_cast<float>(std::fabs(v) / scale) * half;
                const float x0 = v < 0.0 ? p.x + zero_x - len : p.x + zero_x;
                const float x1 = v < 0.0 ? p.x + zero_x : p.x + zero_x + len;
                ImU32 c = v < 0.0 ? detail::kNegativeBar : detail::kBarColor;
                if (i == opts.highlight) c = IM_COL32(120, 220, 120, 255);
                if (hov) c = detail::kBarHover;
                dl->AddRectFilled(ImVec2(x0, p.y + 2.0f), ImVec2(std::max(x1, x0 + 1.0f), p.y + row_h - 2.0f), c);
                end_x = std::max(x1, p.x + zero_x);
            }
            format_number(buf, sizeof buf, v);
            dl->AddText(ImVec2(end_x + kPad, p.y + 2.0f), detail::kAxisText, buf);
        }
    }
    clipper.End();
    ImGui::PopStyleVar();  // ItemSpacing
    if (n > 0) {
        const ImVec2 wp = ImGui::GetWindowPos();
        const float x = wp.x + kPad + zero_x - ImGui::GetScrollX();
        dl->AddLine(ImVec2(x, wp.y), ImVec2(x, wp.y + ImGui::GetWindowHeight()), IM_COL32(255, 255, 255, 60));
    }
    if (res.hovered && opts.show_tooltip) {
        const char* l = labels ? labels[res.index] : nullptr;
        char v[48];
        format_exact(v, sizeof v, res.value);
        ImGui::SetTooltip("%s%s[%d] = %s", l ? l : "", l ? " " : "", res.index, v);
    }
    ImGui::EndChild();
    ImGui::PopID();
    return res;
}

}  // namespace tvis::widgets
