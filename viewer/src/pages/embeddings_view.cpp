// Insights → Embeddings: the PCA (pca.h) of every recorded batch row's pooled
// representation at one module (every recorded step's rows; older files: the
// followed samples alone), coloured by class, followed samples ringed, with a
// depth slider through the modules in forward order (projections cached per
// module; the explained variance shown); hover names the point (batch row,
// step, label, followed sample), a click on a followed one follows it in
// Replay at its step. And the PCA of nn.Embedding tables, each point labelled by its token.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "tvis/links/page_names.h"
#include "../link.h"
#include "embeddings_shown.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

// A categorical colour per distinct label (tab10, then repeating).
ImU32 label_color(const std::vector<std::string>& distinct, const std::string& label) {
  static const ImU32 kTab10[] = {IM_COL32(31, 119, 180, 255), IM_COL32(255, 127, 14, 255), IM_COL32(44, 160, 44, 255),
                                 IM_COL32(214, 39, 40, 255),  IM_COL32(148, 103, 189, 255), IM_COL32(140, 86, 75, 255),
                                 IM_COL32(227, 119, 194, 255), IM_COL32(127, 127, 127, 255), IM_COL32(188, 189, 34, 255),
                                 IM_COL32(23, 190, 207, 255)};
  const size_t k = static_cast<size_t>(std::find(distinct.begin(), distinct.end(), label) - distinct.begin());
  return kTab10[k % 10];
}

// The scatter; returns the point under the mouse (-1 none) and sets *clicked.
// With `mark_followed`, points of no followed sample (samples[i] < 0) are
// drawn small and first, the followed ones large, ringed, on top.
// `box` gets the scatter's box as drawn (the points' centres: scatter_point()).
int draw_scatter(const EmbeddingCloud& c, float side, bool text_labels, bool mark_followed, bool* clicked,
                 EmbeddingsState::Box* box) {
  *clicked = false;
  const ImVec2 p0 = ImGui::GetCursorScreenPos(), p1(p0.x + side, p0.y + side);
  *box = {true, p0.x, p0.y, side};
  const ScatterFrame frame = scatter_frame(c.pca, *box);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, p1, IM_COL32(24, 26, 30, 255));
  dl->AddRect(p0, p1, IM_COL32(80, 80, 80, 255));
  const int n = c.pca.n;
  auto at = [&](int i) {
    const std::array<float, 2> q = scatter_point(frame, c.pca, i);
    return ImVec2(q[0], q[1]);
  };
  std::vector<std::string> distinct;
  for (const auto& l : c.labels)
    if (std::find(distinct.begin(), distinct.end(), l) == distinct.end()) distinct.push_back(l);
  std::sort(distinct.begin(), distinct.end());
  ImGui::InvisibleButton("##scatter", ImVec2(side, side));
  const bool hovered_box = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hovered = -1;
  float best = 8 * 8;
  bool any_other = false;
  for (int pass = 0; pass < (mark_followed ? 2 : 1); ++pass)
    for (int i = 0; i < n; ++i) {
      const bool followed = c.samples[i] >= 0;
      if (mark_followed && followed != (pass == 1)) continue;
      const ImVec2 q = at(i);
      const ImU32 col = label_color(distinct, c.labels[i]);
      if (text_labels) {
        dl->AddText(ImVec2(q.x - 3, q.y - 7), col, c.labels[i].c_str());
      } else if (!mark_followed) {
        dl->AddCircleFilled(q, 4.0f, col);
      } else if (followed) {
        dl->AddCircleFilled(q, 5.0f, col);
        dl->AddCircle(q, 6.5f, IM_COL32(255, 255, 255, 230), 0, 1.5f);
      } else {
        any_other = true;
        dl->AddCircleFilled(q, 2.5f, (col & ~IM_COL32_A_MASK) | IM_COL32(0, 0, 0, 170));
      }
      const float dx = q.x - mouse.x, dy = q.y - mouse.y;
      if (hovered_box && dx * dx + dy * dy <= best) best = dx * dx + dy * dy, hovered = i;
    }
  if (hovered >= 0) {
    dl->AddCircle(at(hovered), 7.0f, IM_COL32(255, 255, 255, 255), 0, 2);
    *clicked = ImGui::IsItemClicked();
  }
  // Legend: up to 10 classes.
  size_t lines = 0;
  if (!text_labels && distinct.size() <= 10 && !(distinct.size() == 1 && distinct[0].empty()))
    for (size_t k = 0; k < distinct.size(); ++k, ++lines) {
      const ImVec2 q(p1.x + 10, p0.y + 6 + k * (ImGui::GetFontSize() + 3));
      dl->AddCircleFilled(ImVec2(q.x + 4, q.y + ImGui::GetFontSize() / 2), 4.0f, label_color(distinct, distinct[k]));
      dl->AddText(ImVec2(q.x + 12, q.y), ImGui::GetColorU32(ImGuiCol_Text), distinct[k].empty() ? "(no label)" : distinct[k].c_str());
    }
  if (mark_followed && any_other) {  // what the ring means
    const ImVec2 q(p1.x + 10, p0.y + 6 + (lines + 1) * (ImGui::GetFontSize() + 3));
    dl->AddCircle(ImVec2(q.x + 4, q.y + ImGui::GetFontSize() / 2), 6.5f, IM_COL32(255, 255, 255, 230), 0, 1.5f);
    dl->AddText(ImVec2(q.x + 14, q.y), ImGui::GetColorU32(ImGuiCol_Text), "followed sample");
  }
  return hovered;
}

}  // namespace

void draw_embeddings(AppState& s, InsightsState& st) {
  EmbeddingsState& em = st.embeddings;
  const std::vector<std::string> modules = embeddings_shown(s, st).modules;
  const auto& tables = s.model.insights().tables();
  if (!modules.empty() && !tables.empty()) {
    if (ImGui::RadioButton("Samples by layer", !em.tables)) em.tables = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("Embedding tables", em.tables)) em.tables = true;
    ImGui::SameLine(0, ImGui::GetFontSize());
  }
  if (!em.tables) {
    em.depth = std::clamp(em.depth, 0, static_cast<int>(modules.size()) - 1);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Depth");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 22);
    ImGui::SliderInt("##depth", &em.depth, 0, static_cast<int>(modules.size()) - 1, modules[em.depth].c_str());
  } else {
    em.table = std::clamp(em.table, 0, static_cast<int>(tables.size()) - 1);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::BeginCombo("##table", tables[em.table].module.c_str())) {
      for (size_t i = 0; i < tables.size(); ++i)
        if (ImGui::Selectable(tables[i].module.c_str(), static_cast<int>(i) == em.table)) em.table = static_cast<int>(i);
      ImGui::EndCombo();
    }
  }
  const EmbeddingsShown shown = embeddings_shown(s, st);  // as the controls left it
  const std::string& name = shown.name;
  EmbeddingCloud* c = shown.cloud;
  if (c->loading) return insight_hint("loading " + name + " ...");
  if (!c->problem.empty()) return insight_hint(c->problem);
  ImGui::SameLine(0, ImGui::GetFontSize());
  const int followed = shown.followed;
  if (em.tables)
    ImGui::Text("%d points · PC1 %.1f%% · PC2 %.1f%% of the variance", c->pca.n, 100 * c->pca.explained[0],
                100 * c->pca.explained[1]);
  else
    ImGui::Text("%d points%s, %d of followed samples · PC1 %.1f%% · PC2 %.1f%% of the variance", c->pca.n,
                c->recorded > c->pca.n ? (" of " + std::to_string(c->recorded) + " rows (thinned)").c_str() : "",
                followed, 100 * c->pca.explained[0], 100 * c->pca.explained[1]);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::max(160.0f, std::min(avail.x - 200, avail.y - 40));
  bool clicked = false;
  const int hovered = draw_scatter(*c, side, em.tables && c->pca.n <= 400, !em.tables, &clicked, &em.drawn);
  em.hovered = hovered;
  if (hovered >= 0) {
    const std::string& l = c->labels[hovered];
    const char* label = l.empty() ? "(none recorded)" : l.c_str();
    const int row = c->rows[hovered];
    const std::string where = row >= 0 ? "batch row " + std::to_string(row) : "batch row unknown";
    if (em.tables) ImGui::SetTooltip("row %d: %s", c->samples[hovered], l.c_str());
    else if (c->samples[hovered] >= 0)
      ImGui::SetTooltip("followed sample %d (%s) at step %d\nlabel: %s\nclick: open it in Replay at that step",
                        c->samples[hovered], where.c_str(), c->steps[hovered], label);
    else ImGui::SetTooltip("%s at step %d\nlabel: %s\nnot followed: only followed samples open in Replay",
                           where.c_str(), c->steps[hovered], label);
  }
  if (clicked && !em.tables && c->samples[hovered] >= 0) {
    const int pos = s.model.samples().position(c->samples[hovered]);
    if (pos >= 0) s.selection.sample_cursor = pos;
    st.sample = c->samples[hovered];
    go_to_step(s, c->steps[hovered]);
    s.page_request = links::page::kReplay;
  }
  const bool rows_kept = followed < c->pca.n;
  insight_hint(em.tables   ? "Each row of the table, labelled by its token."
               : rows_kept ? "Each point: one batch row at one recorded step, pooled at this module's output (mean "
                             "over positions), coloured by class; ringed: a followed sample (click to open it in Replay)."
                           : "Each point: one followed sample at one recorded step, pooled at this module's output "
                             "(mean over positions), coloured by class; click one to open it in Replay.");
}

json embeddings_command(AppState& s, InsightsState& st, const json& cmd) {
  EmbeddingsState& em = st.embeddings;
  if (cmd.contains("depth")) {
    if (!cmd["depth"].is_number_integer()) return false;
    em.depth = cmd["depth"].get<int>();
    em.tables = false;
    return true;
  }
  if (cmd.contains("module")) {
    if (!cmd["module"].is_string() && !cmd["module"].is_number_integer()) return false;  // "0": a link's number
    const std::vector<std::string> modules = embedding_modules(s);
    for (size_t i = 0; i < modules.size(); ++i)
      if (modules[i] == (cmd["module"].is_string() ? cmd["module"].get<std::string>() : cmd["module"].dump())) {
        em.depth = static_cast<int>(i);
        em.tables = false;
        return true;
      }
    const auto& tables = s.model.insights().tables();
    for (size_t i = 0; i < tables.size(); ++i)
      if (tables[i].module == (cmd["module"].is_string() ? cmd["module"].get<std::string>() : cmd["module"].dump())) {
        em.table = static_cast<int>(i);
        em.tables = true;
        return true;
      }
    return false;
  }
  if (cmd.contains("table")) {
    const json& v = cmd["table"];
    if (v == "true" || v == "false") em.tables = v == "true";
    else if (v.is_boolean()) em.tables = v.get<bool>();
    else return false;
    return true;
  }
  return nullptr;
}

}  // namespace tvis::viewer
