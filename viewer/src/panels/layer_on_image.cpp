// The layer panel's On image tab: the layer's map (or where a token looks)
// over the sample's picture; a click lists every neuron's value there
// (layer_view.h).
#include <algorithm>

#include "layer_parts.h"
#include "picture.h"
#include "tvis/widgets/colormap.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

namespace {

constexpr int kMapMaxBlocks = 64;  // overlay cells drawn per side at most

// A strip's token labels, one under each cell that is wide enough for it.
void draw_token_labels(ImDrawList* dl, ImVec2 p0, ImVec2 size, const std::vector<std::string>& labels) {
  if (labels.empty()) return;
  const float cw = size.x / static_cast<float>(labels.size());
  for (size_t t = 0; t < labels.size(); ++t) {
    const ImVec2 ts = ImGui::CalcTextSize(labels[t].c_str());
    if (ts.x > cw - 2) continue;
    dl->AddText(ImVec2(p0.x + cw * (static_cast<float>(t) + 0.5f) - ts.x * 0.5f, p0.y + size.y + 2),
                ImGui::GetColorU32(ImGuiCol_Text), labels[t].c_str());
  }
  ImGui::Dummy(ImVec2(size.x, ImGui::GetTextLineHeightWithSpacing()));
}

}  // namespace

void draw_on_image(PanelContext& c, LayerViewState& v) {
  const LayerMaps& m = v.maps;
  const LayerAttention& att = v.attention;
  const float em = ImGui::GetFontSize();
  draw_layer_attention_choice(v.attention);
  const bool attention = att.painting();
  v.attention.drawn = attention;
  if (m.map.empty() && !attention) {
    say(std::string("A ") + layout_label(m.layout) + " has no spatial map; see Neurons for its values.");
    return;
  }
  // What is painted: where a token looks (attention), or mean |x| per location.
  const int rows = attention ? att.rows() : m.map_rows, cols = attention ? att.cols() : m.map_cols;
  const std::vector<double>& cells = attention ? att.grid : m.map;
  const std::string key = attention ? "attention" + std::to_string(att.tensor) + "|" + std::to_string(att.query_token())
                                    : "maps" + std::to_string(v.texture_version);
  ImGui::SetNextItemWidth(em * 8);
  ImGui::SliderFloat("opacity", &v.opacity, 0.0f, 1.0f, "%.2f");
  ImGui::SameLine();
  if (attention && att.strip)
    ImGui::TextDisabled("%d tokens", cols);
  else if (attention)
    ImGui::TextDisabled("patch grid %d x %d%s", rows, cols, att.cls ? " (without [CLS])" : "");
  else
    ImGui::TextDisabled("map %d x %d%s, mean |x| over %d %s", m.map_rows, m.map_cols,
                        m.skipped_cls ? " (without [CLS])" : "", m.neurons,
                        m.layout == LayerMaps::Layout::Conv ? "channels" : "dims");
  const double hi = *std::max_element(cells.begin(), cells.end());
  const TensorValues* pic = v.picture && v.picture->ok() ? &v.picture->values : nullptr;
  const PictureLayout pl = pic ? picture_layout(pic->shape) : PictureLayout{};
  const bool has_picture = pic && pl.ok && !pic->values.empty();
  const float aspect_w = has_picture ? static_cast<float>(pl.width) : static_cast<float>(cols);
  const float aspect_h = has_picture ? static_cast<float>(pl.height) : static_cast<float>(rows);
  ImVec2 avail = ImGui::GetContentRegionAvail();
  const bool listing = v.picked_r >= 0 && !attention;
  const float list_w = listing ? std::min(em * 14, avail.x * 0.4f) : 0.0f;
  ImVec2 box(avail.x - list_w - em * 4, std::max(em * 6, avail.y - em * 1.5f));
  if (rows == 1) box.y = std::min(box.y, em * 3);  // a token strip
  ImVec2 size = fit_picture(aspect_w, rows == 1 && !has_picture ? aspect_w / 24 : aspect_h, box);
  if (size.x < 4) size = ImVec2(em * 8, em * 8);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 p1(p0.x + size.x, p0.y + size.y);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGui::InvisibleButton("##onimage", size);
  const bool hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked();
  if (has_picture)
    draw_picture(dl, p0, p1, pic->values.data(), pic->values.size(), pl, v.picture->bytes,
                 TextureTarget{&v.textures, c.options.texture_uploader, "picture" + std::to_string(v.picture->id)});
  else
    dl->AddRectFilled(p0, p1, IM_COL32(20, 20, 24, 255));
  auto cell = draw_grid(
      dl, p0, p1, rows, cols, [&](int r, int col) { return cells[static_cast<size_t>(r) * cols + col]; }, hi,
      has_picture ? v.opacity : 1.0f, kMapMaxBlocks, TextureTarget{&v.textures, c.options.texture_uploader, key});
  const std::pair<int, int> looking = att.cell_of(att.query_token());  // {-1, -1}: [CLS], on no patch
  const int mark_r = attention ? looking.first : v.picked_r;
  const int mark_c = attention ? looking.second : v.picked_c;
  if (mark_r >= 0 && mark_r < rows && mark_c >= 0 && mark_c < cols) {  // the clicked location / the looking patch
    const float cw = size.x / cols, ch = size.y / rows;
    dl->AddRect(ImVec2(p0.x + mark_c * cw, p0.y + mark_r * ch), ImVec2(p0.x + (mark_c + 1) * cw, p0.y + (mark_r + 1) * ch),
                IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
  }
  if (hovered && cell.first >= 0) {
    const double val = cells[static_cast<size_t>(cell.first) * cols + cell.second];
    if (attention && att.strip)
      ImGui::SetTooltip("token %d '%s': weight %s\n(click: where this token looks)", cell.second,
                        att.labels[static_cast<size_t>(cell.second)].c_str(), widgets::format_exact(val).c_str());
    else if (attention)
      ImGui::SetTooltip("patch (%d, %d): weight %s\n(click: where this patch looks)", cell.first, cell.second,
                        widgets::format_exact(val).c_str());
    else
      ImGui::SetTooltip("row %d, col %d: mean |x| = %s\n(click: every neuron's value here)", cell.first, cell.second,
                        widgets::format_exact(val).c_str());
    if (clicked && attention) {
      v.attention.query = att.token_at(cell.first, cell.second);
    } else if (clicked) {
      v.picked_r = cell.first;
      v.picked_c = cell.second;
    }
  }
  // Colour bar.
  ImGui::SameLine();
  const ImVec2 b0 = ImGui::GetCursorScreenPos();
  widgets::colorbar(dl, b0, ImVec2(b0.x + em * 0.8f, b0.y + size.y), widgets::Colormap::Sequential,
                    widgets::ColorRange{0, hi > 0 ? hi : 1});
  ImGui::Dummy(ImVec2(em * 3.5f, size.y));
  if (attention && att.strip) draw_token_labels(dl, p0, size, att.labels);
  if (!has_picture && rows > 1) {  // a map meant to lie over the sample's picture (a token strip is not)
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextDisabled("no picture of the sample recorded");
    ImGui::EndGroup();
  }
  if (listing && v.picked_r < m.map_rows && v.picked_c < m.map_cols) {
    ImGui::SameLine();
    ImGui::BeginChild("neurons_here", ImVec2(0, size.y), true);
    ImGui::Text("at (%d, %d)", v.picked_r, v.picked_c);
    ImGui::SameLine();
    if (ImGui::SmallButton("close")) v.picked_r = v.picked_c = -1;
    if (ImGui::BeginTable("here", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY)) {
      ImGui::TableSetupColumn("neuron");
      ImGui::TableSetupColumn("value");
      ImGuiListClipper clip;
      clip.Begin(m.neurons);
      while (clip.Step())
        for (int n = clip.DisplayStart; n < clip.DisplayEnd; ++n) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::Text("%d", n);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(widgets::format_exact(m.neuron_at(n, v.picked_r, v.picked_c)).c_str());
        }
      ImGui::EndTable();
    }
    ImGui::EndChild();
  }
}

}  // namespace tvis::viewer
