// value_table.h: the exact values of a 2-D slice as a scrolling grid, with
// copy to the clipboard. Only visible rows and columns cost anything, so a
// 4096 x 4096 slice scrolls as fast as a 4 x 4 one.
//
// Usage:
//   ValueTableResult t = value_table("##vals", ValueSpan(slice.values), slice.rows, slice.cols);
//
// Interaction:
//   click a cell: select it (highlighted; kept in ImGui state storage).
//   Ctrl+C (table focused): copy the selected cell's exact value.
//   right-click: menu "Copy value" (the clicked cell) / "Copy slice as TSV".
// Contracts:
// - values is row-major rows x cols; a short span shows a one-line error.
// - Cells show format_exact ("%.9g"); headers are 0-based indices. The row
//   header column and the column header row stay visible while scrolling.
// - Copies go through ImGui::SetClipboardText, i.e. the shell's clipboard.
#pragma once

#include <string>

#include "imgui.h"
#include "tvis/widgets/value_span.h"

namespace tvis::widgets {

struct ValueTableOptions {
    ImVec2 size = ImVec2(0.0f, 0.0f);  // x <= 0: available width; y <= 0: 240 px
};

struct ValueTableResult {
    bool hovered = false;  // mouse over a cell
    int row = -1, col = -1;
    double value = 0.0;
    int selected_row = -1, selected_col = -1;  // -1: none
    bool copied = false;   // text went to the clipboard this frame
};

ValueTableResult value_table(const char* id, ValueSpan values, int rows, int cols, const ValueTableOptions& opts = {});

// The slice as tab-separated exact values ("%.9g"), one line per row, each
// line ending in '\n'. Empty when the shape is empty or values is too short.
std::string slice_to_tsv(ValueSpan values, int rows, int cols);

}  // namespace tvis::widgets
