// Insights → Embeddings: the PCA (pca.h) of every recorded batch row's pooled
// representation at one module (every recorded step's rows; older files: the
// followed samples alone), coloured by class, followed samples ringed, with a
// depth slider through the modules in forward order (projections cached per
// module; the explained variance shown); hover names the point (batch row,
// step, label, followed sample), a click on a followed one follows it in
// Replay at its step. And the PCA of nn.Embedding tables, each point labelled by its token.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "../link.h"
#include "insights_state.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

constexpr int kMaxTableRows = 4096;  // a table's leading rows projected
// Points projected of one module's rows (the PCA runs inside a frame): past
// it every followed sample's point stays and the other rows are thinned to
// every k-th, evenly over the steps.
constexpr int kMaxPoints = 8192;

std::vector<std::string> modules_in_order(AppState& s) {
  std::vector<std::string> out;
  for (const EmbeddingEntry& e : s.model.insights().embeddings())
    if (std::find(out.begin(), out.end(), e.module) == out.end()) out.push_back(e.module);
  return out;
}

double elapsed_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The label of batch row `k` of `e` (its class, else the followed sample's).
std::string row_label(const EmbeddingEntry& e, size_t k, int followed) {
  if (k < e.row_labels.size() && !e.row_labels[k].empty()) return e.row_labels[k];
  return followed >= 0 && static_cast<size_t>(followed) < e.labels.size() ? e.labels[followed] : "";
}

// Appends the rows of `d` ([rows, dim]) to `x`; false (and `c` says why)
// when they are not [rows, dim] or their width differs from `*dim`'s.
bool take_rows(const DecodedTensor& d, const std::string& module, int* dim, std::vector<double>& x, EmbeddingCloud& c) {
  if (!d.error.empty() || d.values.shape.size() != 2) {
    c = {false, module + ": " + (d.error.empty() ? "vectors are not [rows, dim]" : d.error)};
    return false;
  }
  const int d_here = static_cast<int>(d.values.shape[1]);
  if (*dim >= 0 && d_here != *dim) {
    c = {false, module + ": vectors of " + std::to_string(*dim) + " and " + std::to_string(d_here) + " dims"};
    return false;
  }
  *dim = d_here;
  x.insert(x.end(), d.values.values.begin(), d.values.values.begin() + static_cast<size_t>(d.values.shape[0]) * d_here);
  return true;
}

// Keeps at most kMaxPoints of `c`'s points (rows of `x`, `dim` wide): every
// followed one, and every k-th other.
void thin(EmbeddingCloud& c, std::vector<double>& x, int dim) {
  const int n = static_cast<int>(c.samples.size());
  if (n <= kMaxPoints) return;
  int followed = 0;
  for (int v : c.samples) followed += v >= 0;
  const int room = std::max(1, kMaxPoints - followed), others = n - followed;
  const int every = (others + room - 1) / room;
  EmbeddingCloud kept;
  std::vector<double> y;
  for (int i = 0, other = 0; i < n; ++i) {
    if (c.samples[i] < 0 && other++ % every != 0) continue;
    kept.steps.push_back(c.steps[i]);
    kept.samples.push_back(c.samples[i]);
    kept.rows.push_back(c.rows[i]);
    kept.labels.push_back(c.labels[i]);
    y.insert(y.end(), x.begin() + static_cast<size_t>(i) * dim, x.begin() + static_cast<size_t>(i + 1) * dim);
  }
  c.steps = std::move(kept.steps);
  c.samples = std::move(kept.samples);
  c.rows = std::move(kept.rows);
  c.labels = std::move(kept.labels);
  x = std::move(y);
}

// Gathers the module's vectors of every step: every recorded batch row where
// the record has them (followed ones marked with their sample id), else the
// followed samples alone (older files); the PCA once all are decoded.
EmbeddingCloud& module_cloud(AppState& s, InsightsState& st, const std::string& module) {
  EmbeddingCloud& c = st.embeddings.cache[module];
  if (!c.loading) return c;
  std::vector<double> x;
  int dim = -1;
  EmbeddingCloud next;
  for (const EmbeddingEntry& e : s.model.insights().embeddings()) {
    if (e.module != module) continue;
    const bool batch = !e.rows.empty();
    const std::shared_ptr<const DecodedTensor> decoded = decoded_tensor(s, batch ? e.batch_vectors : e.vectors, e.step);
    const DecodedTensor& d = *decoded;
    if (d.loading) return c;
    const size_t before = x.size();
    if (!take_rows(d, module, &dim, x, c)) return c;
    const int rows = static_cast<int>(d.values.shape[0]);
    const int have = std::min(rows, static_cast<int>(batch ? e.rows.size() : e.samples.size()));
    x.resize(before + static_cast<size_t>(have) * dim);
    for (int r = 0; r < have; ++r) {
      int followed = -1;  // index into e.samples
      if (batch) {
        for (size_t k = 0; k < e.positions.size() && k < e.samples.size(); ++k)
          if (e.positions[k] == e.rows[r]) followed = static_cast<int>(k);
      } else {
        followed = r;
      }
      next.steps.push_back(e.step);
      next.samples.push_back(followed >= 0 ? e.samples[followed] : -1);
      next.rows.push_back(batch ? e.rows[r] : r < static_cast<int>(e.positions.size()) ? e.positions[r] : -1);
      next.labels.push_back(batch ? row_label(e, r, followed)
                                  : r < static_cast<int>(e.labels.size()) ? e.labels[r] : "");
    }
  }
  next.recorded = static_cast<int>(next.samples.size());
  thin(next, x, std::max(dim, 0));
  const auto t0 = std::chrono::steady_clock::now();
  next.pca = pca2(x, static_cast<int>(next.samples.size()), std::max(dim, 0));
  next.ms = elapsed_ms(t0);
  next.problem = next.pca.problem.empty() ? "" : module + ": " + next.pca.problem;
  next.loading = false;
  c = std::move(next);
  return c;
}

EmbeddingCloud& table_cloud(AppState& s, InsightsState& st, const EmbeddingTableEntry& t) {
  EmbeddingCloud& c = st.embeddings.cache["table:" + t.module];
  if (!c.loading) return c;
  const std::shared_ptr<const DecodedTensor> decoded = decoded_tensor(s, t.rows, INT32_MIN);
  const DecodedTensor& d = *decoded;
  if (d.loading) return c;
  if (!d.error.empty() || d.values.shape.size() != 2) {
    c = {false, t.module + ": " + (d.error.empty() ? "the table is not [rows, dim]" : d.error)};
    return c;
  }
  const int rows = std::min<int>(static_cast<int>(d.values.shape[0]), kMaxTableRows);
  const int dim = static_cast<int>(d.values.shape[1]);
  std::vector<double> x(d.values.values.begin(), d.values.values.begin() + static_cast<size_t>(rows) * dim);
  EmbeddingCloud next;
  const auto t0 = std::chrono::steady_clock::now();
  next.pca = pca2(x, rows, dim);
  next.ms = elapsed_ms(t0);
  for (int r = 0; r < rows; ++r) {
    next.steps.push_back(-1);
    next.samples.push_back(r);
    next.rows.push_back(r);
    next.labels.push_back(r < static_cast<int>(t.labels.size()) && !t.labels[r].empty() ? t.labels[r] : std::to_string(r));
  }
  next.problem = next.pca.problem.empty() ? "" : t.module + ": " + next.pca.problem;
  next.loading = false;
  c = std::move(next);
  return c;
}

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
// `screen` gets each point's centre as drawn, [x, y] (the test surface's).
int draw_scatter(const EmbeddingCloud& c, float side, bool text_labels, bool mark_followed, bool* clicked,
                 json* screen) {
  *clicked = false;
  *screen = json::array();
  const ImVec2 p0 = ImGui::GetCursorScreenPos(), p1(p0.x + side, p0.y + side);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, p1, IM_COL32(24, 26, 30, 255));
  dl->AddRect(p0, p1, IM_COL32(80, 80, 80, 255));
  const int n = c.pca.n;
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 2; ++k) {
      lo[k] = std::min(lo[k], c.pca.points[i * 2 + k]);
      hi[k] = std::max(hi[k], c.pca.points[i * 2 + k]);
    }
  const float pad = 14;
  auto at = [&](int i) {
    const double fx = hi[0] > lo[0] ? (c.pca.points[i * 2] - lo[0]) / (hi[0] - lo[0]) : 0.5;
    const double fy = hi[1] > lo[1] ? (c.pca.points[i * 2 + 1] - lo[1]) / (hi[1] - lo[1]) : 0.5;
    return ImVec2(p0.x + pad + static_cast<float>(fx) * (side - 2 * pad), p1.y - pad - static_cast<float>(fy) * (side - 2 * pad));
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
  for (int i = 0; i < n; ++i) screen->push_back({at(i).x, at(i).y});
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

json label_json(const std::string& l) {
  if (!l.empty() && l.size() < 18 && std::all_of(l.begin(), l.end(), [](char ch) { return (ch >= '0' && ch <= '9') || ch == '-'; }) &&
      l != "-")
    return std::stoll(l);
  return l;
}

json cloud_json(const EmbeddingCloud& c, const std::string& module, int step) {
  json points = json::array(), labels = json::array();
  for (int i = 0; i < c.pca.n; ++i) {
    points.push_back({c.pca.points[i * 2], c.pca.points[i * 2 + 1]});
    labels.push_back(label_json(c.labels[i]));
  }
  int followed = 0;
  for (int v : c.samples) followed += v >= 0;
  return {{"module", module},         {"step", step},           {"points", points},
          {"labels", labels},         {"samples", c.samples},   {"steps", c.steps},
          {"rows", c.rows},           {"count", c.pca.n},       {"followed_count", followed},
          {"recorded", c.recorded < 0 ? c.pca.n : c.recorded},
          {"explained", {c.pca.explained[0], c.pca.explained[1]}}, {"pca_ms", c.ms}};
}

}  // namespace

void draw_embeddings(AppState& s, InsightsState& st) {
  EmbeddingsState& em = st.embeddings;
  em.view = nullptr;
  const std::vector<std::string> modules = modules_in_order(s);
  const auto& tables = s.model.insights().tables();
  if (modules.empty()) em.tables = true;
  if (tables.empty()) em.tables = false;
  if (!modules.empty() && !tables.empty()) {
    if (ImGui::RadioButton("Samples by layer", !em.tables)) em.tables = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("Embedding tables", em.tables)) em.tables = true;
    ImGui::SameLine(0, ImGui::GetFontSize());
  }
  std::string name;
  EmbeddingCloud* c = nullptr;
  if (!em.tables) {
    em.depth = std::clamp(em.depth, 0, static_cast<int>(modules.size()) - 1);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Depth");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 22);
    ImGui::SliderInt("##depth", &em.depth, 0, static_cast<int>(modules.size()) - 1, modules[em.depth].c_str());
    name = modules[em.depth];
    c = &module_cloud(s, st, name);
  } else {
    em.table = std::clamp(em.table, 0, static_cast<int>(tables.size()) - 1);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::BeginCombo("##table", tables[em.table].module.c_str())) {
      for (size_t i = 0; i < tables.size(); ++i)
        if (ImGui::Selectable(tables[i].module.c_str(), static_cast<int>(i) == em.table)) em.table = static_cast<int>(i);
      ImGui::EndCombo();
    }
    name = tables[em.table].module;
    c = &table_cloud(s, st, tables[em.table]);
  }
  if (c->loading) return insight_hint("loading " + name + " ...");
  if (!c->problem.empty()) return insight_hint(c->problem);
  ImGui::SameLine(0, ImGui::GetFontSize());
  int followed = 0;
  for (int v : c->samples) followed += v >= 0;
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
  json screen;
  const int hovered = draw_scatter(*c, side, em.tables && c->pca.n <= 400, !em.tables, &clicked, &screen);
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
    s.page_request = "Replay";
  }
  const bool rows_kept = followed < c->pca.n;
  insight_hint(em.tables   ? "Each row of the table, labelled by its token."
               : rows_kept ? "Each point: one batch row at one recorded step, pooled at this module's output (mean "
                             "over positions), coloured by class; ringed: a followed sample (click to open it in Replay)."
                           : "Each point: one followed sample at one recorded step, pooled at this module's output "
                             "(mean over positions), coloured by class; click one to open it in Replay.");
  em.view = cloud_json(*c, name, s.selection.step);
  em.view["table"] = em.tables;
  em.view["modules"] = modules;
  em.view["depth"] = em.depth;
  em.view["screen"] = std::move(screen);
  em.view["hovered"] = hovered >= 0 ? json(hovered) : json();
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
    const std::vector<std::string> modules = modules_in_order(s);
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
