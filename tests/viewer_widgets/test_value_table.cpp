#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "headless_imgui.h"
#include "tvis/widgets/value_table.h"

using namespace tvis::widgets;
using tvis::widgets::test::HeadlessImGui;

TEST_CASE("slice_to_tsv: exact values, tabs and newlines", "[value_table]") {
    const std::vector<float> v = {0.1f, -2.0f, NAN, 1e-8f, INFINITY, 3.0f};
    CHECK(slice_to_tsv(ValueSpan(v), 2, 3) == "0.100000001\t-2\tnan\n9.99999994e-09\tinf\t3\n");
    CHECK(slice_to_tsv(ValueSpan(v), 3, 3).empty());
    CHECK(slice_to_tsv(ValueSpan(v), 0, 3).empty());
}

TEST_CASE("value_table: hover, click to select, Ctrl+C and the copy menu", "[value_table]") {
    HeadlessImGui ui;
    const int rows = 1000, cols = 50;
    std::vector<double> v(rows * cols);
    for (int i = 0; i < rows * cols; ++i) v[i] = i + 0.125;
    ValueTableOptions o;
    o.size = ImVec2(600, 300);
    ValueTableResult r;
    ImVec2 origin;
    auto frame = [&] {
        ui.frame([&] {
            origin = ImGui::GetCursorScreenPos();
            r = value_table("##v", ValueSpan(v), rows, cols, o);
        });
    };
    frame();
    const float row_h = ImGui::GetTextLineHeight() + 4.0f;
    const float cell_w = ImGui::CalcTextSize("-8.88888888e-88").x + 8.0f;
    const float head_w = ImGui::CalcTextSize("999").x + 12.0f;
    // Cell (row 3, col 2): below the header row and right of the row-index column.
    const ImVec2 cell(origin.x + head_w + 2.5f * cell_w, origin.y + row_h * 4.5f);
    ui.io().MousePos = cell;
    frame();
    REQUIRE(r.hovered);
    CHECK(r.row == 3);
    CHECK(r.col == 2);
    CHECK(r.value == 3 * cols + 2 + 0.125);

    ui.io().MouseDown[0] = true;
    frame();
    ui.io().MouseDown[0] = false;
    frame();
    CHECK(r.selected_row == 3);
    CHECK(r.selected_col == 2);

    ui.io().KeyCtrl = true;
    ui.io().KeysDown['C'] = true;
    frame();
    CHECK(r.copied);
    CHECK(std::string(ImGui::GetClipboardText()) == "152.125");
    ui.io().KeysDown['C'] = false;
    ui.io().KeyCtrl = false;
    frame();

    // Right-click opens the menu; clicking "Copy slice as TSV" copies everything.
    ui.io().MouseDown[1] = true;
    frame();
    ui.io().MouseDown[1] = false;
    frame();
    frame();
    // The menu opens at the mouse: item 2 ("Copy slice as TSV") is the second line.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float item_h = ImGui::GetTextLineHeight() + style.ItemSpacing.y;
    ui.io().MousePos = ImVec2(cell.x + 30.0f, cell.y + style.WindowPadding.y + item_h * 1.5f);
    frame();
    ui.io().MouseDown[0] = true;
    frame();
    ui.io().MouseDown[0] = false;
    frame();
    CHECK(r.copied);
    const std::string clip = ImGui::GetClipboardText();
    CHECK(clip.size() == slice_to_tsv(ValueSpan(v), rows, cols).size());
    CHECK((clip == slice_to_tsv(ValueSpan(v), rows, cols)));
    CHECK(clip.substr(0, 18) == "0.125\t1.125\t2.125\t");
}

TEST_CASE("value_table: huge slices stay cheap; short data shows an error", "[value_table]") {
    HeadlessImGui ui;
    const int rows = 4096, cols = 4096;
    std::vector<float> v(static_cast<std::size_t>(rows) * cols, 1.0f);
    ValueTableResult r;
    ui.frame([&] { r = value_table("##big", ValueSpan(v), rows, cols, ValueTableOptions{}); });
    int vertices = 0;
    ImDrawData* dd = ImGui::GetDrawData();
    for (int i = 0; i < dd->CmdListsCount; ++i) vertices += dd->CmdLists[i]->VtxBuffer.Size;
    CHECK(vertices < 200000);
    ui.frame([&] { r = value_table("##short", ValueSpan(v.data(), 10), 5, 5, ValueTableOptions{}); });
    CHECK_FALSE(r.hovered);
}
