#include "tvis/widgets/value_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tvis/widgets/format_number.h"
#include "widget_style.h"

namespace tvis::widgets {
namespace {

using detail::kPad;

bool shape_ok(ValueSpan values, int rows, int cols) {
    return rows > 0 && cols > 0 &&
           static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) <= values.size();
}

void copy_value(double v) {
    char buf[48];
    format_exact(buf, sizeof buf, v);
    ImGui::SetClipboardText(buf);
}

}  // namespace

std::string slice_to_tsv(ValueSpan values, int rows, int cols) {
    std::string out;
    if (!shape_ok(values, rows, cols)) return out;
    char buf[48];
    out.reserve(static_cast<std::size_t>(rows) * cols * 10);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            if (c) out.push_back('\t');
            out.append(buf, static_cast<std::size_t>(format_exact(buf, sizeof buf, values[static_cast<std::size_t>(r) * cols + c])));
        }
        out.push_back('\n');
    }
    return out;
}

ValueTableResult value_table(const char* id, ValueSpan values, int rows, int cols, const ValueTableOptions& opts) {
    ValueTableResult res;
    ImGui::PushID(id);
    const ImVec2 size = detail::resolve_size(opts.size, 240.0f, ImVec2(80.0f, 40.0f));
    if (!shape_ok(values, rows, cols)) {
        if (rows > 0 && cols > 0)
            ImGui::TextColored(ImVec4(1.0f, 0.47f, 0.47f, 1.0f), "value table: %zu values for %d x %d cells",
                               values.size(), rows, cols);
        ImGui::PopID();
        return res;
    }
    ImGuiStorage* st = ImGui::GetStateStorage();
    const ImGuiID sel_r_key = ImGui::GetID("sel_row"), sel_c_key = ImGui::GetID("sel_col");
    const ImGuiID menu_r_key = ImGui::GetID("menu_row"), menu_c_key = ImGui::GetID("menu_col");
    res.selected_row = st->GetInt(sel_r_key, -1);
    res.selected_col = st->GetInt(sel_c_key, -1);
    if (res.selected_row >= rows || res.selected_col >= cols) res.selected_row = res.selected_col = -1;

    const float th = ImGui::GetTextLineHeight();
    const float row_h = th + 4.0f;
    const float cell_w = ImGui::CalcTextSize("-8.88888888e-88").x + 2.0f * kPad;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%d", rows - 1);
    const float head_w = ImGui::CalcTextSize(buf).x + 3.0f * kPad;

    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0.0f, 0.0f));
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::ColorConvertU32ToFloat4(detail::kFrameBg));
    ImGui::BeginChild("##cells", size, true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PopStyleColor();
    ImGui::PopStyleVar();  // the padding is taken at BeginChild; popups inside keep the normal style
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0.0f, 0.0f));  // rows exactly row_h apart
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 win_pos = ImGui::GetWindowPos();
    const float scroll_x = ImGui::GetScrollX();
    const float view_w = ImGui::GetWindowContentRegionMax().x;  // visible width, scrollbar excluded
    const float total_w = head_w + cols * cell_w;

    // Visible columns.
    const int c0 = std::clamp(static_cast<int>((scroll_x) / cell_w), 0, cols - 1);
    const int c1 = std::clamp(static_cast<int>((scroll_x + view_w - head_w) / cell_w) + 1, c0 + 1, cols);

    ImGui::Dummy(ImVec2(total_w, row_h));  // room under the column header
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool hovered_window = ImGui::IsWindowHovered();
    ImGuiListClipper clipper;
    clipper.Begin(rows, row_h);
    while (clipper.Step()) {
        for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
            const ImVec2 p = ImGui::GetCursorScreenPos();  // left edge of the row (scrolled)
            for (int c = c0; c < c1; ++c) {
                const float x = p.x + head_w + c * cell_w;
                const double v = values[static_cast<std::size_t>(r) * cols + c];
                const bool selected = r == res.selected_row && c == res.selected_col;
                if (selected) dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + cell_w, p.y + row_h), IM_COL32(66, 120, 200, 140));
                format_exact(buf, sizeof buf, v);
                const float tw = ImGui::CalcTextSize(buf).x;
                const ImU32 color = std::isfinite(v) ? IM_COL32(225, 228, 232, 255) : IM_COL32(255, 120, 255, 255);
                dl->AddText(ImVec2(x + cell_w - kPad - tw, p.y + 2.0f), color, buf);  // right-aligned numbers
            }
            if (r % 2 == 1) dl->AddRectFilled(p, ImVec2(p.x + total_w, p.y + row_h), IM_COL32(255, 255, 255, 8));
            ImGui::Dummy(ImVec2(total_w, row_h));
        }
    }
    clipper.End();

    // Sticky headers over the cells: column indices on top, row indices on the left.
    const ImVec2 content_min(win_pos.x, win_pos.y);  // no window padding
    const float visible_h = ImGui::GetWindowHeight();
    const float top_y = content_min.y;
    const float rows_origin_y = content_min.y - ImGui::GetScrollY() + row_h;  // y of row 0
    dl->AddRectFilled(ImVec2(content_min.x, top_y), ImVec2(content_min.x + view_w, top_y + row_h), IM_COL32(34, 37, 43, 255));
    for (int c = c0; c < c1; ++c) {
        std::snprintf(buf, sizeof buf, "%d", c);
        const float x = content_min.x - scroll_x + head_w + c * cell_w;
        const float tw = ImGui::CalcTextSize(buf).x;
        dl->AddText(ImVec2(x + cell_w - kPad - tw, top_y + 2.0f), detail::kAxisText, buf);
    }
    dl->AddRectFilled(ImVec2(content_min.x, top_y + row_h), ImVec2(content_min.x + head_w, top_y + visible_h), IM_COL32(34, 37, 43, 255));
    const int r0 = std::max(0, static_cast<int>(ImGui::GetScrollY() / row_h) - 1);
    const int r1 = std::min(rows, r0 + static_cast<int>(visible_h / row_h) + 3);
    dl->PushClipRect(ImVec2(content_min.x, top_y + row_h), ImVec2(content_min.x + head_w, top_y + visible_h), true);
    for (int r = r0; r < r1; ++r) {
        std::snprintf(buf, sizeof buf, "%d", r);
        dl->AddText(ImVec2(content_min.x + kPad, rows_origin_y + r * row_h + 2.0f), detail::kAxisText, buf);
    }
    dl->PopClipRect();

    // Hover and selection: the cell under the mouse, outside the headers.
    if (hovered_window && mouse.x >= content_min.x + head_w && mouse.y >= top_y + row_h &&
        mouse.x < content_min.x + view_w) {
        const int c = static_cast<int>((mouse.x - content_min.x + scroll_x - head_w) / cell_w);
        const int r = static_cast<int>((mouse.y - rows_origin_y) / row_h);
        if (r >= 0 && r < rows && c >= 0 && c < cols) {
            res.hovered = true;
            res.row = r;
            res.col = c;
            res.value = values[static_cast<std::size_t>(r) * cols + c];
            if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
                res.selected_row = r;
                res.selected_col = c;
            }
            if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
                st->SetInt(menu_r_key, r);
                st->SetInt(menu_c_key, c);
                ImGui::OpenPopup("##copy_menu");
            }
        }
    }
    ImGui::PopStyleVar();  // ItemSpacing
    st->SetInt(sel_r_key, res.selected_row);
    st->SetInt(sel_c_key, res.selected_col);

    const ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsWindowFocused() && io.KeyCtrl && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_C), false) &&
        res.selected_row >= 0) {
        copy_value(values[static_cast<std::size_t>(res.selected_row) * cols + res.selected_col]);
        res.copied = true;
    }
    if (ImGui::BeginPopup("##copy_menu")) {
        const int mr = std::clamp(st->GetInt(menu_r_key, 0), 0, rows - 1);
        const int mc = std::clamp(st->GetInt(menu_c_key, 0), 0, cols - 1);
        if (ImGui::MenuItem("Copy value")) {
            copy_value(values[static_cast<std::size_t>(mr) * cols + mc]);
            res.copied = true;
        }
        if (ImGui::MenuItem("Copy slice as TSV")) {
            ImGui::SetClipboardText(slice_to_tsv(values, rows, cols).c_str());
            res.copied = true;
        }
        ImGui::EndPopup();
    }
    ImGui::EndChild();
    ImGui::PopID();
    return res;
}

}  // namespace tvis::widgets
