// Weights' "All layers": every parameter as a thumbnail (its weight,
// gradient or Δw at the Selection's step), with its name, shape and update
// ratio, in the list's sort order; click one to open it. Rows of thumbnails
// are clipped (ImGuiListClipper): only those scrolled into view have their
// values read and reduced, at most kThumbBudgetMs of reduction a frame, so
// scrolling through a big model stays smooth and reads only what is seen.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <string>
#include <vector>

#include "tvis/viewer_model/param_update.h"
#include "../theme.h"
#include "tvis/widgets/format_number.h"
#include "weights_state.h"

namespace tvis::viewer {

namespace {

constexpr double kThumbBudgetMs = 4.0;

using Clock = std::chrono::steady_clock;

// Reads and reduces `row`'s thumbnail when it is not ready; false while its
// values load (or the frame's budget is spent).
void ensure_thumbnail(AppState& s, WeightsState& w, const ParamRow& row, Thumbnail& t, Clock::time_point start,
                      int* built) {
  const std::string key = std::string(show_name(w.show)) + "/" + std::to_string(s.selection.step);
  if (t.key != key) {
    t.key = key;
    t.ready = false;
    t.why.clear();
    t.image = {};
  }
  if (t.ready) return;
  const std::optional<ParamTensors> p = s.model.optimizer_steps().param_tensors(s.selection.step, row.name);
  if (!p) {
    t.ready = true;
    t.why = "not updated at this step";
    return;
  }
  bool loading = false;
  const TensorRef r = tensor_at(s, shown_tensor(*p, w.show), s.selection.step, &loading);
  if (!r) {
    if (!loading) {
      t.ready = true;
      t.why = w.show == WeightShow::Grad ? "no gradient" : w.show == WeightShow::Update ? "no update" : "no record";
    }
    return;
  }
  if (*built > 0 && std::chrono::duration<double, std::milli>(Clock::now() - start).count() > kThumbBudgetMs) return;
  const std::shared_ptr<const DecodedTensor> decoded = w.show == WeightShow::Update
                                                           ? update_values(s.model, *p, s.selection.step)
                                                           : s.model.values().get(r);
  if (decoded->loading) return;
  ++*built;
  t.ready = true;
  if (!decoded->ok()) {
    t.why = r.kept().kept == ValuesKept::None ? "statistics only" : "unreadable";
    return;
  }
  t.image = thumbnail_image(decoded->values, kThumbSide);
  ++t.version;
}

}  // namespace

void draw_all_layers(AppState& s, WeightsState& w) {
  const std::vector<ParamRow> rows = param_rows(s, w);
  const float em = ImGui::GetFontSize();
  const float thumb = em * 5.5f;
  const float cell_w = std::max(thumb, em * 9.5f);
  const float cell_h = thumb + ImGui::GetTextLineHeightWithSpacing() * 3 + em * 0.6f;
  ImGui::BeginChild("thumbs", ImVec2(0, ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeight()), true);
  if (w.thumbs_scroll >= 0) {
    ImGui::SetScrollY(w.thumbs_scroll);
    w.thumbs_scroll = -1;
  }
  const int per_row = std::max(1, static_cast<int>((ImGui::GetContentRegionAvail().x + 4) / (cell_w + em * 0.5f)));
  const int row_count = (static_cast<int>(rows.size()) + per_row - 1) / per_row;
  const Clock::time_point start = Clock::now();
  int built = 0;
  w.thumbs_visible = 0;
  w.thumbs_drawn = 0;
  ImGuiListClipper clip;
  clip.Begin(row_count, cell_h + ImGui::GetStyle().ItemSpacing.y);
  while (clip.Step()) {
    for (int line = clip.DisplayStart; line < clip.DisplayEnd; ++line) {
      for (int k = 0; k < per_row; ++k) {
        const size_t i = static_cast<size_t>(line * per_row + k);
        if (i >= rows.size()) break;
        const ParamRow& row = rows[i];
        if (k > 0) ImGui::SameLine(0, em * 0.5f);
        ImGui::BeginGroup();
        ImGui::PushID(row.name.c_str());
        Thumbnail& t = w.thumbs[row.name];
        ensure_thumbnail(s, w, row, t, start, &built);
        ++w.thumbs_visible;
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->AddRectFilled(at, ImVec2(at.x + cell_w, at.y + cell_h),
                          row.name == w.param ? IM_COL32(45, 60, 85, 255) : IM_COL32(30, 32, 38, 255), 4.0f);
        // The image, centred; then a button over the whole cell (the
        // heatmap, submitted first, answers for its own area).
        const ImVec2 img_min(at.x + (cell_w - thumb) * 0.5f, at.y + em * 0.3f);
        bool hovered = false, clicked = false;
        if (t.ready && t.why.empty() && t.image.rows > 0) {
          ++w.thumbs_drawn;
          ImGui::SetCursorScreenPos(img_min);
          widgets::HeatmapOptions o;
          o.size = ImVec2(thumb, thumb);
          o.colormap = widgets::Colormap::Diverging;
          o.symmetric = true;
          o.show_colorbar = false;
          o.show_tooltip = false;
          o.keep_aspect = !t.image.vector && t.image.rows > 1;  // a vector fills the square as stripes
          o.uploader = s.options.texture_uploader;
          o.texture = t.texture.get();
          o.data_version = t.version;
          const widgets::HeatmapResult h =
              widgets::heatmap("##t", widgets::ValueSpan(t.image.values), t.image.rows, t.image.cols, o);
          hovered = h.hovered;
          clicked = h.clicked;
        } else {
          const char* label = t.ready ? t.why.c_str() : "loading ...";
          const ImVec2 ts = ImGui::CalcTextSize(label);
          dl->AddText(ImVec2(img_min.x + (thumb - ts.x) * 0.5f, img_min.y + thumb * 0.5f - ts.y * 0.5f),
                      ImGui::GetColorU32(ImGuiCol_TextDisabled), label);
        }
        ImGui::SetCursorScreenPos(at);
        clicked |= ImGui::InvisibleButton("cell", ImVec2(cell_w, cell_h));
        hovered |= ImGui::IsItemHovered();
        if (hovered) dl->AddRect(at, ImVec2(at.x + cell_w, at.y + cell_h), IM_COL32(120, 160, 220, 255), 4.0f);
        // Name, shape, update ratio.
        const float ty = img_min.y + thumb + em * 0.2f;
        dl->PushClipRect(at, ImVec2(at.x + cell_w - 2, at.y + cell_h), true);
        const float lh = ImGui::GetTextLineHeight();
        dl->AddText(ImVec2(at.x + 4, ty), ImGui::GetColorU32(row.here ? ImGuiCol_Text : ImGuiCol_TextDisabled),
                    row.name.c_str());
        dl->AddText(ImVec2(at.x + 4, ty + lh), ImGui::GetColorU32(ImGuiCol_TextDisabled), row.shape.c_str());
        const std::string ratio = std::isnan(row.ratio) ? std::string("ratio —") : "ratio " + widgets::format_number(row.ratio, 3);
        dl->AddText(ImVec2(at.x + 4, ty + 2 * lh), ImGui::GetColorU32(ImGuiCol_TextDisabled), ratio.c_str());
        dl->PopClipRect();
        if (hovered) {
          ImGui::SetTooltip("%s %s\n‖Δw‖/‖w‖ = %s\nclick to open", row.name.c_str(), row.shape.c_str(),
                            std::isnan(row.ratio) ? "—" : widgets::format_exact(row.ratio).c_str());
        }
        if (clicked) {
          w.param = row.name;
          w.all_layers = false;
          w.all_layers_request = true;
        }
        ImGui::PopID();
        ImGui::EndGroup();
      }
    }
  }
  ImGui::EndChild();
  ImGui::TextDisabled("%zu parameters; %d in view, %d drawn", rows.size(), w.thumbs_visible, w.thumbs_drawn);
}

}  // namespace tvis::viewer
