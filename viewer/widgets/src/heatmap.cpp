#include "tvis/widgets/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tvis/widgets/format_number.h"
#include "widget_style.h"

namespace tvis::widgets {
namespace {

using detail::kPad;

constexpr float kBarWidth = 12.0f;
constexpr float kMinSide = 16.0f;
constexpr int kBarSegments = 32;

bool shape_ok(ValueSpan values, int rows, int cols) {
    return rows > 0 && cols > 0 &&
           static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) <= values.size();
}

ColorRange effective_range(ValueSpan values, std::size_t n, const HeatmapOptions& o) {
    if (o.has_range) return o.range;
    return color_range_of(values.sub(0, n), o.symmetric);
}

// The image rectangle inside `area` for the shape.
void fit_image(ImVec2 area_min, ImVec2 area_size, int rows, int cols, bool keep_aspect, ImVec2* mn, ImVec2* mx) {
    float w = area_size.x, h = area_size.y;
    if (keep_aspect) {
        const float cell = std::min(area_size.x / cols, area_size.y / rows);
        w = cell * cols;
        h = cell * rows;
        w = std::max(w, std::min(kMinSide, area_size.x));
        h = std::max(h, std::min(kMinSide, area_size.y));
    }
    *mn = area_min;
    *mx = ImVec2(area_min.x + w, area_min.y + h);
}

// Draws cells (or blocks of cells) as rectangles. Returns how many.
std::size_t draw_rects(ImDrawList* dl, ValueSpan values, int rows, int cols, ImVec2 mn, ImVec2 mx, Colormap map,
                       ColorRange range) {
    const float cw = (mx.x - mn.x) / cols, ch = (mx.y - mn.y) / rows;
    const int bc = cw >= 1.0f ? 1 : static_cast<int>(std::ceil(1.0f / cw));
    const int br = ch >= 1.0f ? 1 : static_cast<int>(std::ceil(1.0f / ch));
    const int nbc = (cols + bc - 1) / bc, nbr = (rows + br - 1) / br;
    const std::size_t n = static_cast<std::size_t>(nbc) * static_cast<std::size_t>(nbr);
    dl->PrimReserve(static_cast<int>(n * 6), static_cast<int>(n * 4));
    for (int r0 = 0; r0 < rows; r0 += br) {
        const int r1 = std::min(rows, r0 + br);
        const float y0 = mn.y + r0 * ch, y1 = mn.y + r1 * ch;
        for (int c0 = 0; c0 < cols; c0 += bc) {
            const int c1 = std::min(cols, c0 + bc);
            const double v = (br == 1 && bc == 1) ? values[static_cast<std::size_t>(r0) * cols + c0]
                                                  : heatmap_block_value(values, cols, r0, r1, c0, c1, range);
            dl->PrimRect(ImVec2(mn.x + c0 * cw, y0), ImVec2(mn.x + c1 * cw, y1), colormap_color(map, range, v));
        }
    }
    return n;
}

// Uploads (or re-uploads) the texture when its key changed. Returns false when
// no texture could be made.
bool ensure_texture(HeatmapTexture* t, TextureUploader* up, ValueSpan values, const void* key_data, int rows, int cols,
                    const HeatmapOptions& o, ColorRange range) {
    const bool current = t->id != nullptr && t->uploader == up && t->data == key_data && t->rows == rows &&
                         t->cols == cols && t->version == o.data_version && t->colormap == o.colormap &&
                         t->range.lo == range.lo && t->range.hi == range.hi;
    if (current) return true;
    std::vector<std::uint8_t> rgba;
    int w = 0, h = 0;
    if (!heatmap_rgba(values, rows, cols, o.colormap, range, kMaxTextureSide, &rgba, &w, &h)) return false;
    if (t->id != nullptr && t->uploader == up && t->width == w && t->height == h) {
        up->update(t->id, w, h, rgba.data());
    } else {
        t->release();
        t->id = up->create(w, h, rgba.data());
        if (t->id == nullptr) return false;
        t->uploader = up;
        t->width = w;
        t->height = h;
    }
    ++t->uploads;
    t->data = key_data;
    t->rows = rows;
    t->cols = cols;
    t->version = o.data_version;
    t->colormap = o.colormap;
    t->range = range;
    return true;
}

}  // namespace

void HeatmapTexture::release() {
    if (id != nullptr && uploader != nullptr) uploader->destroy(id);
    id = nullptr;
    uploader = nullptr;
    width = height = 0;
    data = nullptr;
}

double heatmap_block_value(ValueSpan values, int cols, int r0, int r1, int c0, int c1, ColorRange range) {
    (void)range;
    // First pass: non-finite values win; else the mean of the block.
    double sum = 0.0, inf = 0.0;
    std::size_t n = 0;
    for (int r = r0; r < r1; ++r) {
        const std::size_t row = static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
        for (int c = c0; c < c1; ++c) {
            const double v = values[row + c];
            if (std::isnan(v)) return v;
            if (std::isinf(v)) inf = v;
            else sum += v, ++n;
        }
    }
    if (inf != 0.0) return inf;
    if (n == 0) return NAN;
    // Second pass: the value farthest from the mean, so one spike in a calm block shows.
    const double mean = sum / static_cast<double>(n);
    double best = mean, best_d = -1.0;
    for (int r = r0; r < r1; ++r) {
        const std::size_t row = static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
        for (int c = c0; c < c1; ++c) {
            const double v = values[row + c];
            if (std::fabs(v - mean) > best_d) best_d = std::fabs(v - mean), best = v;
        }
    }
    return best;
}

bool heatmap_rgba(ValueSpan values, int rows, int cols, Colormap map, ColorRange range, int max_side,
                  std::vector<std::uint8_t>* rgba, int* width, int* height) {
    if (!rgba || !width || !height || !shape_ok(values, rows, cols) || max_side < 1) return false;
    const int bc = (cols + max_side - 1) / max_side, br = (rows + max_side - 1) / max_side;
    const int w = (cols + bc - 1) / bc, h = (rows + br - 1) / br;
    rgba->resize(static_cast<std::size_t>(w) * h * 4);
    std::uint8_t* p = rgba->data();
    for (int r0 = 0; r0 < rows; r0 += br) {
        for (int c0 = 0; c0 < cols; c0 += bc) {
            const double v = (br == 1 && bc == 1)
                                 ? values[static_cast<std::size_t>(r0) * cols + c0]
                                 : heatmap_block_value(values, cols, r0, std::min(rows, r0 + br), c0,
                                                       std::min(cols, c0 + bc), range);
            const ImU32 c = colormap_color(map, range, v);
            *p++ = static_cast<std::uint8_t>(c >> IM_COL32_R_SHIFT);
            *p++ = static_cast<std::uint8_t>(c >> IM_COL32_G_SHIFT);
            *p++ = static_cast<std::uint8_t>(c >> IM_COL32_B_SHIFT);
            *p++ = static_cast<std::uint8_t>(c >> IM_COL32_A_SHIFT);
        }
    }
    *width = w;
    *height = h;
    return true;
}

float colorbar_width(ColorRange range) {
    float label_w = 0.0f;
    for (double v : {range.lo, 0.5 * (range.lo + range.hi), range.hi})
        label_w = std::max(label_w, ImGui::CalcTextSize(format_number(v).c_str()).x);
    return kBarWidth + kPad + label_w;
}

void colorbar(ImDrawList* dl, ImVec2 mn, ImVec2 mx, Colormap map, ColorRange range) {
    const float h = mx.y - mn.y;
    if (h <= 0.0f) return;
    const float bar_x1 = mn.x + kBarWidth;
    for (int i = 0; i < kBarSegments; ++i) {
        // Top is hi, bottom is lo.
        const double t_top = 1.0 - static_cast<double>(i) / kBarSegments;
        const double t_bot = 1.0 - static_cast<double>(i + 1) / kBarSegments;
        const ImU32 ct = colormap_sample(map, t_top), cb = colormap_sample(map, t_bot);
        dl->AddRectFilledMultiColor(ImVec2(mn.x, mn.y + h * i / kBarSegments),
                                    ImVec2(bar_x1, mn.y + h * (i + 1) / kBarSegments), ct, ct, cb, cb);
    }
    dl->AddRect(mn, ImVec2(bar_x1, mx.y), detail::kFrameBorder);
    const float th = ImGui::GetTextLineHeight();
    double mid = 0.5 * (range.lo + range.hi);
    if (std::fabs(mid) < 1e-6 * std::fabs(range.hi - range.lo)) mid = 0.0;  // float noise around a symmetric range
    const struct { double v; float y; } labels[] = {
        {range.hi, mn.y}, {mid, mn.y + 0.5f * (h - th)}, {range.lo, mx.y - th}};
    for (const auto& l : labels) {
        if (h < 3.0f * th && l.v == mid) continue;  // no room for the middle label
        dl->AddText(ImVec2(bar_x1 + kPad, l.y), detail::kAxisText, format_number(l.v).c_str());
    }
}

HeatmapResult heatmap(const char* id, ValueSpan values, int rows, int cols, const HeatmapOptions& opts) {
    HeatmapResult res;
    ImGui::PushID(id);
    const ImVec2 size = detail::resolve_size(opts.size, 256.0f);
    const ImVec2 pos = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##heatmap", size);
    const bool item_hovered = ImGui::IsItemHovered();
    const bool item_clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 frame_max(pos.x + size.x, pos.y + size.y);

    if (!shape_ok(values, rows, cols)) {
        if (rows > 0 && cols > 0) {
            char msg[128];
            std::snprintf(msg, sizeof msg, "heatmap: %zu values for %d x %d cells", values.size(), rows, cols);
            dl->AddText(ImVec2(pos.x + kPad, pos.y + kPad), IM_COL32(255, 120, 120, 255), msg);
        }
        ImGui::PopID();
        return res;
    }
    const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
    const ColorRange range = effective_range(values, n, opts);
    res.range = range;

    const float bar_w = opts.show_colorbar ? colorbar_width(range) + kPad : 0.0f;
    const ImVec2 area(std::max(1.0f, size.x - bar_w), size.y);
    ImVec2 mn, mx;
    fit_image(pos, area, rows, cols, opts.keep_aspect, &mn, &mx);
    mn = ImVec2(std::floor(mn.x), std::floor(mn.y));
    mx = ImVec2(std::floor(mx.x), std::floor(mx.y));
    res.image_min = mn;
    res.image_max = mx;

    dl->AddRectFilled(mn, mx, detail::kFrameBg);
    dl->PushClipRect(pos, frame_max, true);
    const bool want_texture = opts.uploader && opts.texture && n > static_cast<std::size_t>(kRectPathMaxCells);
    if (want_texture &&
        ensure_texture(opts.texture, opts.uploader, values, values.data(), rows, cols, opts, range)) {
        dl->AddImage(opts.texture->id, mn, mx);
        res.used_texture = true;
    } else {
        res.rects = draw_rects(dl, values, rows, cols, mn, mx, opts.colormap, range);
    }
    dl->AddRect(ImVec2(mn.x - 1, mn.y - 1), ImVec2(mx.x + 1, mx.y + 1), detail::kFrameBorder);
    if (opts.show_colorbar)
        colorbar(dl, ImVec2(mx.x + kPad, mn.y), ImVec2(mx.x + kPad + colorbar_width(range), mx.y), opts.colormap,
                 range);

    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if (item_hovered && mouse.x >= mn.x && mouse.x < mx.x && mouse.y >= mn.y && mouse.y < mx.y) {
        const float cw = (mx.x - mn.x) / cols, ch = (mx.y - mn.y) / rows;
        res.hovered = true;
        res.col = std::clamp(static_cast<int>((mouse.x - mn.x) / cw), 0, cols - 1);
        res.row = std::clamp(static_cast<int>((mouse.y - mn.y) / ch), 0, rows - 1);
        res.value = values[static_cast<std::size_t>(res.row) * cols + res.col];
        res.clicked = item_clicked;
        if (cw >= 3.0f && ch >= 3.0f) {
            const ImVec2 c0(mn.x + res.col * cw, mn.y + res.row * ch);
            dl->AddRect(c0, ImVec2(c0.x + cw, c0.y + ch), detail::kHighlight);
        }
        if (opts.show_tooltip) {
            char v[48];
            format_exact(v, sizeof v, res.value);
            const char* rl = opts.row_labels ? opts.row_labels[res.row] : nullptr;
            const char* cl = opts.col_labels ? opts.col_labels[res.col] : nullptr;
            ImGui::SetTooltip("row %d%s%s%s, col %d%s%s%s = %s", res.row, rl ? " \"" : "", rl ? rl : "", rl ? "\"" : "",
                              res.col, cl ? " \"" : "", cl ? cl : "", cl ? "\"" : "", v);
        }
    }
    dl->PopClipRect();
    ImGui::PopID();
    return res;
}

}  // namespace tvis::widgets
