#include "tvis/widgets/line_plot.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "imgui_internal.h"
#include "draw_decimated.h"
#include "plot_view_storage.h"
#include "tvis/widgets/axis_ticks.h"
#include "tvis/widgets/decimate.h"
#include "tvis/widgets/format_number.h"
#include "widget_style.h"

namespace tvis::widgets {
namespace {

using detail::kPad;

constexpr double kZoomStep = 0.85;      // view scale per wheel notch
constexpr std::size_t kHoverScanMax = 200000;

struct Mapping {
    ImVec2 mn, mx;
    PlotView v;
    float sx(double x) const { return mn.x + static_cast<float>((x - v.x_lo) / (v.x_hi - v.x_lo)) * (mx.x - mn.x); }
    float sy(double y) const { return mx.y - static_cast<float>((y - v.y_lo) / (v.y_hi - v.y_lo)) * (mx.y - mn.y); }
    double dx(float px) const { return v.x_lo + (px - mn.x) / (mx.x - mn.x) * (v.x_hi - v.x_lo); }
    double dy(float py) const { return v.y_lo + (mx.y - py) / (mx.y - mn.y) * (v.y_hi - v.y_lo); }
};

std::size_t series_length(const PlotSeries& s) {
    return s.x.empty() ? s.y.size() : std::min(s.x.size(), s.y.size());
}

double x_of(const PlotSeries& s, std::size_t i) { return s.x.empty() ? static_cast<double>(i) : s.x[i]; }

// Extent of x over all series (first/last finite x of each, x being sorted).
bool data_x_extent(const PlotSeries* series, int count, double* lo, double* hi) {
    bool any = false;
    for (int k = 0; k < count; ++k) {
        const std::size_t n = series_length(series[k]);
        std::size_t a = 0, b = n;
        while (a < n && !std::isfinite(x_of(series[k], a))) ++a;
        while (b > a && !std::isfinite(x_of(series[k], b - 1))) --b;
        if (a >= b) continue;
        const double x0 = x_of(series[k], a), x1 = x_of(series[k], b - 1);
        *lo = any ? std::min(*lo, x0) : x0;
        *hi = any ? std::max(*hi, x1) : x1;
        any = true;
    }
    return any;
}

// Widens a degenerate range so that it can be mapped.
void widen(double* lo, double* hi) {
    if (*hi > *lo) return;
    const double pad = *lo == 0.0 ? 0.5 : std::fabs(*lo) * 0.1;
    *lo -= pad;
    *hi += pad;
}

double plotted(double y, bool log_y) {
    if (!std::isfinite(y)) return NAN;
    if (log_y) return y > 0.0 ? std::log10(y) : NAN;
    return y;
}

// Tick values for y over the view: as many as fit with a label every 1.5
// text lines; when that leaves fewer than 3, labels closer together (a line
// and a sixth apart: still apart) if that gives more.
std::vector<double> y_tick_values(const PlotView& v, bool log_y, float h, float th) {
    auto ticks = [&](float spacing) {
        const int n = std::max(2, static_cast<int>(h / (th * spacing)));
        return log_y ? log_ticks(std::pow(10.0, v.y_lo), std::pow(10.0, v.y_hi), n) : nice_ticks(v.y_lo, v.y_hi, n);
    };
    std::vector<double> t = ticks(1.5f);
    if (t.size() < 3) {
        std::vector<double> tight = ticks(7.0f / 6.0f);
        if (tight.size() > t.size()) t = std::move(tight);
    }
    return t;
}

// Draws grid, ticks and labels; returns the number of y ticks drawn.
int draw_axes(ImDrawList* dl, const Mapping& m, bool log_y, bool integer_x) {
    const float w = m.mx.x - m.mn.x, h = m.mx.y - m.mn.y;
    const float th = ImGui::GetTextLineHeight();
    const int max_x_ticks = std::max(2, static_cast<int>(w / 90.0f));
    const std::vector<double> xt = integer_x ? nice_integer_ticks(m.v.x_lo, m.v.x_hi, max_x_ticks)
                                             : nice_ticks(m.v.x_lo, m.v.x_hi, max_x_ticks);
    const std::vector<std::string> xl = tick_labels(xt);
    for (std::size_t i = 0; i < xt.size(); ++i) {
        const float x = std::floor(m.sx(xt[i])) + 0.5f;
        dl->AddLine(ImVec2(x, m.mn.y), ImVec2(x, m.mx.y), detail::kGridColor);
        dl->AddLine(ImVec2(x, m.mx.y), ImVec2(x, m.mx.y + detail::kTickLen), detail::kAxisText);
        const float tw = ImGui::CalcTextSize(xl[i].c_str()).x;
        dl->AddText(ImVec2(x - tw * 0.5f, m.mx.y + detail::kTickLen + 1.0f), detail::kAxisText, xl[i].c_str());
    }
    const std::vector<double> label_values = y_tick_values(m.v, log_y, h, th);
    std::vector<double> yt;  // in plotted space
    for (double t : label_values) yt.push_back(log_y ? std::log10(t) : t);
    const std::vector<std::string> yl = tick_labels(label_values);
    for (std::size_t i = 0; i < yt.size(); ++i) {
        const float y = std::floor(m.sy(yt[i])) + 0.5f;
        dl->AddLine(ImVec2(m.mn.x, y), ImVec2(m.mx.x, y), detail::kGridColor);
        dl->AddLine(ImVec2(m.mn.x - detail::kTickLen, y), ImVec2(m.mn.x, y), detail::kAxisText);
        const float tw = ImGui::CalcTextSize(yl[i].c_str()).x;
        dl->AddText(ImVec2(m.mn.x - detail::kTickLen - 2.0f - tw, y - th * 0.5f), detail::kAxisText, yl[i].c_str());
    }
    return static_cast<int>(yt.size());
}

// "log y" in the plot's top-right corner, on the legend's background.
void draw_log_label(ImDrawList* dl, const Mapping& m) {
    const char* text = "log y";
    const ImVec2 ts = ImGui::CalcTextSize(text);
    const ImVec2 at(m.mx.x - kPad - ts.x, m.mn.y + kPad);
    dl->AddRectFilled(ImVec2(at.x - 2, at.y - 1), ImVec2(at.x + ts.x + 2, at.y + ts.y + 1), IM_COL32(22, 24, 28, 200));
    dl->AddText(at, detail::kAxisText, text);
}

// Turns linearly decimated vertices (all y > 0) into log10 ones.
void to_log(std::vector<DecimatedVertex>* verts) {
    for (DecimatedVertex& v : *verts)
        if (!std::isnan(v.y)) v.y = std::log10(v.y);
}

// Draws the decimated polyline, split at breaks, and a dot on each vertex
// when `dots`. Returns vertices submitted.
std::size_t draw_series(ImDrawList* dl, const Mapping& m, const std::vector<DecimatedVertex>& verts, ImU32 color,
                        bool dots, std::vector<ImVec2>* scratch) {
    std::size_t submitted = 0;
    std::size_t i = 0;
    while (i < verts.size()) {
        scratch->clear();
        while (i < verts.size() && !std::isnan(verts[i].y)) {
            scratch->push_back(ImVec2(m.sx(verts[i].x), m.sy(verts[i].y)));
            ++i;
        }
        detail::draw_decimated(dl, *scratch, color, 1.5f);
        if (dots)
            for (const ImVec2& p : *scratch) dl->AddCircleFilled(p, 2.5f, color, 8);
        submitted += scratch->size();
        ++i;  // skip the break marker
    }
    return submitted;
}

// The source point nearest to the mouse (see header). Returns squared pixel distance, or -1.
float nearest_point(const PlotSeries& s, const Mapping& m, ImVec2 mouse, bool log_y, std::size_t* out_index) {
    const std::size_t n = series_length(s);
    if (n == 0) return -1.0f;
    std::size_t a = 0, b = 0;
    visible_index_range(s.x, n, m.dx(mouse.x - 0.5f), m.dx(mouse.x + 0.5f), &a, &b);
    float best = -1.0f;
    // Returns whether point i is drawable (and so was considered).
    auto consider = [&](std::size_t i) {
        const double y = plotted(s.y[i], log_y), x = x_of(s, i);
        if (std::isnan(y) || !std::isfinite(x)) return false;
        const float ddx = m.sx(x) - mouse.x, ddy = m.sy(y) - mouse.y;
        const float d = ddx * ddx + ddy * ddy;
        if (best < 0.0f || d < best) {
            best = d;
            *out_index = i;
        }
        return true;
    };
    if (b > a) {
        for (std::size_t i = a; i < b && i - a < kHoverScanMax; ++i) consider(i);
    }
    if (best < 0.0f) {
        // Nothing drawable in the mouse's column: the nearest drawable point on either side.
        std::size_t lb = 0, ub = 0;
        const double xm = m.dx(mouse.x);
        visible_index_range(s.x, n, xm, xm, &lb, &ub);
        for (std::size_t i = lb, k = 0; i > 0 && k < 64; --i, ++k)
            if (consider(i - 1)) break;
        for (std::size_t i = lb, k = 0; i < n && k < 64; ++i, ++k)
            if (consider(i)) break;
    }
    return best;
}

void draw_legend(ImDrawList* dl, const Mapping& m, const PlotSeries* series, int count) {
    float y = m.mn.y + kPad;
    const float th = ImGui::GetTextLineHeight();
    for (int k = 0; k < count; ++k) {
        if (!series[k].label) continue;
        const ImU32 c = series[k].color ? series[k].color : detail::series_color(k);
        const float x = m.mn.x + kPad;
        const ImVec2 ts = ImGui::CalcTextSize(series[k].label);
        dl->AddRectFilled(ImVec2(x - 2, y - 1), ImVec2(x + 18 + kPad + ts.x + 2, y + th + 1), IM_COL32(22, 24, 28, 200));
        dl->AddLine(ImVec2(x, y + th * 0.5f), ImVec2(x + 16, y + th * 0.5f), c, 2.0f);
        dl->AddText(ImVec2(x + 18 + kPad, y), detail::kAxisText, series[k].label);
        y += th + 2.0f;
    }
}

// The view of one plot as kept in ImGui's state storage between frames.
struct StoredView {
    PlotView v;
    bool user_x = false;  // x was zoomed or panned by hand (else: all data)
    bool user_y = false;  // y was zoomed or panned by hand (else: fit visible data)
    bool have_y = false;  // a y range from an earlier frame exists
    bool log_y = false;   // the y range is in log10 (the scale drawn last frame)
};

StoredView load_view(ImGuiStorage* st, double data_lo, double data_hi) {
    StoredView s;
    s.user_x = st->GetBool(ImGui::GetID("user_x"), false);
    s.user_y = st->GetBool(ImGui::GetID("user_y"), false);
    s.v.x_lo = s.user_x ? detail::load_double(st, "x_lo") : data_lo;
    s.v.x_hi = s.user_x ? detail::load_double(st, "x_hi") : data_hi;
    if (!(s.v.x_hi > s.v.x_lo)) s.v.x_lo = data_lo, s.v.x_hi = data_hi, s.user_x = false;
    s.v.y_lo = detail::load_double(st, "y_lo");
    s.v.y_hi = detail::load_double(st, "y_hi");
    s.have_y = s.v.y_hi > s.v.y_lo;
    s.log_y = st->GetBool(ImGui::GetID("log_y"), false);
    if (!s.have_y) s.user_y = false;
    return s;
}

void save_view(ImGuiStorage* st, const StoredView& s) {
    st->SetBool(ImGui::GetID("user_x"), s.user_x);
    st->SetBool(ImGui::GetID("user_y"), s.user_y);
    st->SetBool(ImGui::GetID("log_y"), s.log_y);
    detail::store_double(st, "x_lo", s.v.x_lo);
    detail::store_double(st, "x_hi", s.v.x_hi);
    detail::store_double(st, "y_lo", s.v.y_lo);
    detail::store_double(st, "y_hi", s.v.y_hi);
}

// Wheel zoom around the mouse (Shift: y) and drag pan, applied to s.v.
void apply_input(const Mapping& m, bool in_plot, bool dragging, StoredView* s) {
    const ImGuiIO& io = ImGui::GetIO();
    if (in_plot && io.MouseWheel != 0.0f) {
        const double f = std::pow(kZoomStep, static_cast<double>(io.MouseWheel));
        if (io.KeyShift && s->have_y) {
            const double c = m.dy(io.MousePos.y);
            s->v.y_lo = c - (c - s->v.y_lo) * f;
            s->v.y_hi = c + (s->v.y_hi - c) * f;
            s->user_y = true;
        } else {
            const double c = m.dx(io.MousePos.x);
            s->v.x_lo = c - (c - s->v.x_lo) * f;
            s->v.x_hi = c + (s->v.x_hi - c) * f;
            s->user_x = true;
        }
    }
    if (dragging && io.MouseDelta.x != 0.0f) {
        const double d = io.MouseDelta.x / (m.mx.x - m.mn.x) * (s->v.x_hi - s->v.x_lo);
        s->v.x_lo -= d;
        s->v.x_hi -= d;
        s->user_x = true;
    }
    if (dragging && io.MouseDelta.y != 0.0f && s->have_y) {
        const double d = io.MouseDelta.y / (m.mx.y - m.mn.y) * (s->v.y_hi - s->v.y_lo);
        s->v.y_lo += d;
        s->v.y_hi += d;
        s->user_y = true;
    }
}

// The nearest point over all series into res (has_point, series, index, x, y).
void find_hover(const PlotSeries* series, int count, const Mapping& m, ImVec2 mouse, bool log_y, LinePlotResult* res) {
    float best = -1.0f;
    for (int k = 0; k < count; ++k) {
        std::size_t idx = 0;
        const float d = nearest_point(series[k], m, mouse, log_y, &idx);
        if (d < 0.0f || (best >= 0.0f && d >= best)) continue;
        best = d;
        res->has_point = true;
        res->series = k;
        res->index = idx;
        res->x = x_of(series[k], idx);
        res->y = series[k].y[idx];
    }
}

void hover_tooltip(const PlotSeries& s, const LinePlotResult& res) {
    const char* label = s.label;
    char xs[48], ys[48];
    format_exact(xs, sizeof xs, res.x);
    format_exact(ys, sizeof ys, res.y);
    if (s.x.empty())
        ImGui::SetTooltip("%s%s[%zu]\ny = %s", label ? label : "", label ? " " : "", res.index, ys);
    else
        ImGui::SetTooltip("%s%s[%zu]\nx = %s\ny = %s", label ? label : "", label ? " " : "", res.index, xs, ys);
}

}  // namespace

LinePlotResult line_plot(const char* id, const PlotSeries* series, int series_count, const LinePlotOptions& opts) {
    LinePlotResult res;
    if (!series) series_count = 0;
    ImGui::PushID(id);
    const ImVec2 size = detail::resolve_size(opts.size, detail::kDefaultHeight, ImVec2(120.0f, 80.0f));
    const ImVec2 pos = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##plot", size);
    ImGui::SetItemUsingMouseWheel();
    const bool item_hovered = ImGui::IsItemHovered();
    const bool item_active = ImGui::IsItemActive();
    // A click is a release after a press on the plot that moved less than 3 px.
    const bool released_click = ImGui::IsItemDeactivated() &&
                                ImGui::GetIO().MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] < 9.0f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImGuiStorage* st = ImGui::GetStateStorage();

    // Layout: y labels on the left, x labels below.
    const float th = ImGui::GetTextLineHeight();
    const float left = ImGui::CalcTextSize("-8.88e-88").x + detail::kTickLen + 2.0f * kPad;
    Mapping m;
    m.mn = ImVec2(std::floor(pos.x + left), std::floor(pos.y + kPad));
    m.mx = ImVec2(std::floor(pos.x + size.x - kPad - ImGui::CalcTextSize("8.88").x * 0.5f),
                  std::floor(pos.y + size.y - th - detail::kTickLen - 2.0f * kPad));
    const int width_px = std::max(1, static_cast<int>(m.mx.x - m.mn.x));
    res.plot_width_px = width_px;
    res.plot_min = m.mn;
    res.plot_max = m.mx;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool in_plot = item_hovered && mouse.x >= m.mn.x && mouse.x < m.mx.x && mouse.y >= m.mn.y && mouse.y < m.mx.y;
    res.hovered = in_plot;
    res.clicked = released_click && in_plot;

    // View: stored, reset by double-click, moved by input.
    double data_lo = 0.0, data_hi = 1.0;
    if (!data_x_extent(series, series_count, &data_lo, &data_hi)) data_lo = 0.0, data_hi = 1.0;
    widen(&data_lo, &data_hi);
    const double x_pad = (data_hi - data_lo) * 0.02;
    data_lo -= x_pad;
    data_hi += x_pad;
    StoredView view = load_view(st, data_lo, data_hi);
    if (in_plot && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) view.user_x = view.user_y = false;
    if (!view.user_x) view.v.x_lo = data_lo, view.v.x_hi = data_hi;
    m.v = view.v;
    apply_input(m, in_plot, item_active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f), &view);
    if (!(view.v.x_hi > view.v.x_lo) || !std::isfinite(view.v.x_hi - view.v.x_lo))
        view.v.x_lo = data_lo, view.v.x_hi = data_hi, view.user_x = false;
    m.v = view.v;

    // The y scale: forced, kept while y is set by hand, else chosen below from the data in view.
    if (view.user_y && view.log_y != opts.log_y && (opts.log_y || !opts.auto_log_y)) view.user_y = false;
    bool log_y = opts.log_y || (view.user_y && view.log_y);

    // Decimate every series for this view; y fits what is visible unless set by hand.
    static thread_local std::vector<std::vector<DecimatedVertex>> decimated;
    decimated.resize(static_cast<std::size_t>(series_count));
    bool any_y = false;
    double ylo = 0.0, yhi = 1.0;
    for (int k = 0; k < series_count; ++k) {
        const DecimateStats s = decimate_min_max(series[k].x, series[k].y, m.v.x_lo, m.v.x_hi, width_px, log_y,
                                                 &decimated[static_cast<std::size_t>(k)]);
        res.points_in_view += s.points_visited;
        if (s.vertices == 0) continue;
        ylo = any_y ? std::min(ylo, s.y_min) : s.y_min;
        yhi = any_y ? std::max(yhi, s.y_max) : s.y_max;
        any_y = true;
    }
    if (!log_y && !view.user_y && opts.auto_log_y && any_y && wants_log_scale(ylo, yhi)) {
        for (auto& verts : decimated) to_log(&verts);  // every value in view is > 0
        ylo = std::log10(ylo);
        yhi = std::log10(yhi);
        log_y = true;
    }
    view.log_y = log_y;
    res.log_y = log_y;
    if (!view.user_y) {
        widen(&ylo, &yhi);
        const double pad = (yhi - ylo) * 0.05;
        view.v.y_lo = ylo - pad;
        view.v.y_hi = yhi + pad;
    }
    if (!(view.v.y_hi > view.v.y_lo) || !std::isfinite(view.v.y_hi - view.v.y_lo))
        view.v.y_lo = 0.0, view.v.y_hi = 1.0, view.user_y = false;
    save_view(st, view);
    m.v = view.v;
    res.view = m.v;

    // Draw.
    dl->AddRectFilled(m.mn, m.mx, detail::kFrameBg);
    res.y_ticks = draw_axes(dl, m, log_y, opts.integer_x);
    const bool dots = res.points_in_view * 8 <= static_cast<std::size_t>(width_px);
    dl->PushClipRect(m.mn, m.mx, true);
    static thread_local std::vector<ImVec2> scratch;
    for (int k = 0; k < series_count; ++k) {
        const ImU32 c = series[k].color ? series[k].color : detail::series_color(k);
        res.vertices += draw_series(dl, m, decimated[static_cast<std::size_t>(k)], c, dots, &scratch);
    }

    if (in_plot) find_hover(series, series_count, m, mouse, log_y, &res);
    if (res.has_point) {
        const ImVec2 p(m.sx(res.x), m.sy(plotted(res.y, log_y)));
        dl->AddLine(ImVec2(p.x, m.mn.y), ImVec2(p.x, m.mx.y), detail::kCrosshair);
        dl->AddCircle(p, 4.0f, detail::kHighlight, 12, 1.5f);
    }
    if (std::isfinite(opts.marker_x) && opts.marker_x >= m.v.x_lo && opts.marker_x <= m.v.x_hi) {
        const float x = std::floor(m.sx(opts.marker_x)) + 0.5f;
        dl->AddLine(ImVec2(x, m.mn.y), ImVec2(x, m.mx.y), IM_COL32(255, 220, 120, 200), 1.0f);
    }
    dl->PopClipRect();
    if (opts.show_legend) draw_legend(dl, m, series, series_count);
    if (log_y) draw_log_label(dl, m);
    dl->AddRect(ImVec2(m.mn.x - 1, m.mn.y - 1), ImVec2(m.mx.x + 1, m.mx.y + 1), detail::kFrameBorder);

    if (res.has_point && opts.show_tooltip) hover_tooltip(series[res.series], res);
    ImGui::PopID();
    return res;
}

}  // namespace tvis::widgets
