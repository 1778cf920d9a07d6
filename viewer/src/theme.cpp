#include "theme.h"

#include <imgui.h>

#include "embedded_font.h"

namespace tvis::viewer {

void apply_theme(float ui_scale) {
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 4.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.PopupRounding = 3.0f;
  style.TabRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.ScrollbarRounding = 6.0f;
  style.WindowBorderSize = 0.0f;
  style.FramePadding = ImVec2(8, 4);
  style.ItemSpacing = ImVec2(8, 5);
  style.CellPadding = ImVec2(6, 2);
  style.WindowPadding = ImVec2(10, 8);

  ImVec4* c = style.Colors;
  const ImVec4 bg(0.090f, 0.098f, 0.114f, 1.0f);
  const ImVec4 panel(0.118f, 0.129f, 0.149f, 1.0f);
  const ImVec4 accent(0.36f, 0.62f, 1.00f, 1.0f);
  c[ImGuiCol_WindowBg] = bg;
  c[ImGuiCol_ChildBg] = panel;
  c[ImGuiCol_PopupBg] = ImVec4(0.13f, 0.14f, 0.16f, 0.98f);
  c[ImGuiCol_MenuBarBg] = panel;
  c[ImGuiCol_Border] = ImVec4(0.22f, 0.24f, 0.28f, 1.0f);
  c[ImGuiCol_FrameBg] = ImVec4(0.16f, 0.17f, 0.20f, 1.0f);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.21f, 0.23f, 0.27f, 1.0f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.25f, 0.28f, 0.33f, 1.0f);
  c[ImGuiCol_TitleBg] = panel;
  c[ImGuiCol_TitleBgActive] = panel;
  c[ImGuiCol_Button] = ImVec4(0.19f, 0.21f, 0.25f, 1.0f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.26f, 0.36f, 0.52f, 1.0f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.30f, 0.45f, 0.70f, 1.0f);
  // Selected rows are blue; a hovered row is a neutral grey, so the row under
  // the mouse is never mistaken for a second selection.
  c[ImGuiCol_Header] = ImVec4(0.22f, 0.35f, 0.56f, 0.90f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.28f, 0.30f, 0.35f, 0.90f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.30f, 0.45f, 0.70f, 1.0f);
  c[ImGuiCol_Tab] = ImVec4(0.15f, 0.16f, 0.19f, 1.0f);
  c[ImGuiCol_TabHovered] = ImVec4(0.26f, 0.38f, 0.58f, 1.0f);
  c[ImGuiCol_TabActive] = ImVec4(0.22f, 0.33f, 0.50f, 1.0f);
  c[ImGuiCol_CheckMark] = accent;
  c[ImGuiCol_SliderGrab] = accent;
  c[ImGuiCol_SliderGrabActive] = ImVec4(0.50f, 0.72f, 1.00f, 1.0f);
  c[ImGuiCol_TableHeaderBg] = ImVec4(0.15f, 0.16f, 0.19f, 1.0f);
  c[ImGuiCol_TableRowBgAlt] = ImVec4(1.0f, 1.0f, 1.0f, 0.025f);
  c[ImGuiCol_Text] = ImVec4(0.90f, 0.91f, 0.93f, 1.0f);
  c[ImGuiCol_TextDisabled] = ImVec4(0.55f, 0.57f, 0.62f, 1.0f);

  style.ScaleAllSizes(ui_scale);
  ImGui::GetStyle() = style;
}

void build_fonts(float ui_scale, float framebuffer_scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const float pixels = 15.0f * ui_scale * framebuffer_scale;
  ImFontConfig config;
  config.FontDataOwnedByAtlas = false;  // the bytes are static
  config.OversampleH = 2;
  config.OversampleV = 1;
  // Latin, Greek (Δ, Σ), punctuation (‖, –), arrows (→) and math operators
  // (−, ≈): the pages write formulas such as ‖Δw‖/‖w‖ and −log p.
  static const ImWchar kRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F,
                                    0x2190, 0x21FF, 0x2200, 0x22FF, 0};
  config.GlyphRanges = kRanges;
  ImFont* font = nullptr;
  if (kEmbeddedFontSize > 0) {
    font = io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(kEmbeddedFont),
                                          static_cast<int>(kEmbeddedFontSize), pixels, &config);
  }
  if (!font) {
    ImFontConfig fallback;
    fallback.SizePixels = 13.0f * ui_scale * framebuffer_scale;
    io.Fonts->AddFontDefault(&fallback);
  }
  io.Fonts->Build();
  io.FontGlobalScale = 1.0f / framebuffer_scale;
}

}  // namespace tvis::viewer
