// Insights → Attention: one layer's token-to-token map for the shown sample
// and step (one head, or the mean over heads), the real tokens on both axes
// (characters, words, or patch positions for image models), exact weight on
// hover, a causal mask drawn as such; a head grid of the layer (click one to
// show it); the attention rollout over a chosen range of layers
// (attention_rollout.h); for image models, where [CLS] or a clicked patch
// looks (the rollout's row, or the shown layer's: the radio buttons say
// which), painted over the sample's picture. Weights rebuilt from a fused
// kernel's q and k show like captured ones; the caption says which they are,
// the recorded mask is drawn over the map (grey), and a kept part of a long
// sequence is named.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "../panels/picture.h"
#include "attention_shown.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

constexpr float kPictureMaxSide = 260.0f, kPictureMinSide = 96.0f;  // an image model's painted picture

// The height left in the window above the status bar (error_panel.cpp: it
// lies over the window's last frame height).
float height_left() { return ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeight(); }


// Token labels along the left and top of a drawn heatmap; every k-th when cells are small.
void draw_axis_labels(const widgets::HeatmapResult& h, const std::vector<std::string>& names, int rows, int cols) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const float ch = (h.image_max.y - h.image_min.y) / rows, cw = (h.image_max.x - h.image_min.x) / cols;
  const ImU32 col = ImGui::GetColorU32(ImGuiCol_Text);
  const int kr = std::max(1, static_cast<int>(std::ceil(fs / std::max(ch, 1e-3f))));
  for (int r = 0; r < rows && r < static_cast<int>(names.size()); r += kr) {
    const ImVec2 sz = ImGui::CalcTextSize(names[r].c_str());
    dl->AddText(ImVec2(h.image_min.x - sz.x - 4, h.image_min.y + (r + 0.5f) * ch - sz.y / 2), col, names[r].c_str());
  }
  float widest = 0;
  for (const auto& n : names) widest = std::max(widest, ImGui::CalcTextSize(n.c_str()).x);
  const int kc = std::max(1, static_cast<int>(std::ceil((widest + 4) / std::max(cw, 1e-3f))));
  for (int c = 0; c < cols && c < static_cast<int>(names.size()); c += kc) {
    const ImVec2 sz = ImGui::CalcTextSize(names[c].c_str());
    dl->AddText(ImVec2(h.image_min.x + (c + 0.5f) * cw - sz.x / 2, h.image_min.y - sz.y - 2), col, names[c].c_str());
  }
}

// The masked upper triangle of a causal map, greyed out.
void draw_causal_mask(const widgets::HeatmapResult& h, int t) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float cw = (h.image_max.x - h.image_min.x) / t, ch = (h.image_max.y - h.image_min.y) / t;
  const ImVec2 a(h.image_min.x + cw, h.image_min.y), b(h.image_max.x, h.image_min.y), c(h.image_max.x, h.image_max.y - ch);
  dl->AddTriangleFilled(a, b, c, IM_COL32(40, 40, 40, 200));
}

// The recorded mask (rows x cols, nonzero = masked) greyed over a drawn map:
// one texture, uploaded once per mask tensor; per-cell rectangles without an
// uploader (bounded: larger masks are then left undrawn and only captioned).
void draw_mask(AppState& s, InsightsState& st, const widgets::HeatmapResult& h, const std::vector<double>& mask,
               int rows, int cols, uint64_t id) {
  if (rows <= 0 || cols <= 0 || mask.size() < static_cast<size_t>(rows) * cols) return;
  constexpr ImU32 kMasked = IM_COL32(40, 40, 40, 215);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const TextureTarget target = texture_target(s, st, "mask" + std::to_string(id));
  if (target.textures && target.uploader) {
    ImTextureID tex = target.textures->get(target.uploader, target.key, [&](std::vector<std::uint8_t>* rgba, int* w, int* hh) {
      *w = cols;
      *hh = rows;
      rgba->assign(static_cast<size_t>(rows) * cols * 4, 0);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
          if (mask[static_cast<size_t>(r) * cols + c] != 0) fill_texels(rgba, cols, c, r, c + 1, r + 1, kMasked);
      return true;
    });
    if (tex) {
      dl->AddImage(tex, h.image_min, h.image_max);
      return;
    }
  }
  if (static_cast<size_t>(rows) * cols > 64 * 64) return;
  const float cw = (h.image_max.x - h.image_min.x) / cols, ch = (h.image_max.y - h.image_min.y) / rows;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (mask[static_cast<size_t>(r) * cols + c] != 0)
        dl->AddRectFilled(ImVec2(h.image_min.x + c * cw, h.image_min.y + r * ch),
                          ImVec2(h.image_min.x + (c + 1) * cw, h.image_min.y + (r + 1) * ch), kMasked);
}

// The caption under the layer's title: how the weights were obtained, the
// kernel's dropout, and the kept part of a long sequence.
std::string origin_caption(const AttentionEntry& e, int rows, int cols) {
  std::string out = "Weights " + attention_origin(e);
  if (e.dropout > 0) {
    char buf[48];
    std::snprintf(buf, sizeof buf, ", before its dropout (p = %.3g)", e.dropout);
    out += buf;
  }
  if (e.full.size() == 2)
    out += "; the first " + std::to_string(rows) + " of " + std::to_string(e.full[0]) + " queries and " +
           std::to_string(cols) + " of " + std::to_string(e.full[1]) + " keys were kept";
  return out + ".";
}

// A square heatmap with token axes; returns what it reported.
widgets::HeatmapResult token_map(AppState& s, const char* id, const std::vector<double>& m, int rows, int cols,
                                 const std::vector<std::string>& names, float side, widgets::HeatmapTexture* tex,
                                 uint64_t version) {
  float label_w = 0;
  for (const auto& n : names) label_w = std::min(std::max(label_w, ImGui::CalcTextSize(n.c_str()).x), 120.0f);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(ImVec2(at.x + label_w + 8, at.y + ImGui::GetFontSize() + 4));
  std::vector<const char*> labels;
  for (const auto& n : names) labels.push_back(n.c_str());
  widgets::HeatmapOptions o;
  o.size = ImVec2(side, side);
  o.uploader = s.options.texture_uploader;
  o.texture = tex;
  o.data_version = version;
  o.has_range = true;
  o.range = {0, 1};
  double hi = 0;
  for (double v : m) hi = std::max(hi, v);
  o.range.hi = hi > 0 ? hi : 1;
  if (static_cast<int>(labels.size()) >= rows) o.row_labels = labels.data();
  if (static_cast<int>(labels.size()) >= cols) o.col_labels = labels.data();
  widgets::HeatmapResult h = widgets::heatmap(id, widgets::ValueSpan(m), rows, cols, o);
  draw_axis_labels(h, names, rows, cols);
  return h;
}

void draw_head_grid(AppState& s, AttentionState& a, const AttentionWeights& w, uint64_t tensor) {
  const int heads = w.heads;
  while (static_cast<int>(a.head_textures.size()) < heads) a.head_textures.push_back(std::make_unique<widgets::HeatmapTexture>());
  const float side = std::clamp(ImGui::GetContentRegionAvail().x / std::min(heads, 4) - 12, 48.0f, 110.0f);
  const size_t plane = static_cast<size_t>(w.rows) * w.cols;
  for (int h = 0; h < heads; ++h) {
    if (h % 4) ImGui::SameLine();
    ImGui::BeginGroup();
    widgets::HeatmapOptions o;
    o.size = ImVec2(side, side);
    o.show_colorbar = false;
    o.uploader = s.options.texture_uploader;
    o.texture = a.head_textures[h].get();
    o.data_version = tensor;
    const std::string id = "##head" + std::to_string(h);
    const widgets::HeatmapResult r = widgets::heatmap(id.c_str(), widgets::ValueSpan(w.w.data() + h * plane, plane), w.rows, w.cols, o);
    if (r.clicked) a.head = h;
    if (a.head == h) ImGui::GetWindowDrawList()->AddRect(r.image_min, r.image_max, IM_COL32(255, 179, 92, 255), 0, 0, 2);
    ImGui::Text("head %d", h);
    ImGui::EndGroup();
  }
}

// For image models (v.image): row `query` of the rollout (when
// `a.paint_rollout` and it is computed) or of the shown layer map (T x T),
// painted over the picture; the caption says which.
void draw_on_picture(AppState& s, InsightsState& st, const AttentionShown& v) {
  AttentionState& a = st.attention;
  if (!v.image) return;
  const AttentionEntry& e = *v.entry;
  const std::vector<double>& m = v.map;
  const int t = v.weights.rows, n = v.grid;
  const bool cls = v.cls;
  const std::shared_ptr<const DecodedTensor> pic = sample_picture(s, e.step, e.sample);
  const bool rollout = a.paint_rollout && static_cast<int>(a.rollout.size()) == t * t;
  if (ImGui::RadioButton("rollout##paint", a.paint_rollout)) a.paint_rollout = true;
  ImGui::SameLine();
  if (ImGui::RadioButton("this layer##paint", !a.paint_rollout)) a.paint_rollout = false;
  ImGui::SameLine();
  ImGui::TextUnformatted(a.query == 0 && cls ? "Where [CLS] looks (click a patch for its own row)"
                                             : "Where the clicked patch looks (click another)");
  if (a.paint_rollout && !rollout) insight_hint("no rollout for this range: this layer's map painted instead");
  const std::vector<double>& src = rollout ? a.rollout : m;
  const std::vector<double> grid = query_row_on_grid(src, t, a.query, n, cls);
  // Fits the height left (the opacity slider and a hint line below it).
  const float below = ImGui::GetFrameHeightWithSpacing() + (pic ? 0.0f : ImGui::GetTextLineHeightWithSpacing());
  const float side = std::max(kPictureMinSide, std::min({ImGui::GetContentRegionAvail().x, kPictureMaxSide,
                                                         height_left() - below}));
  const ImVec2 p0 = ImGui::GetCursorScreenPos(), p1(p0.x + side, p0.y + side);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (pic)
    draw_picture(dl, p0, p1, pic->values.values.data(), pic->values.values.size(), picture_layout(pic->values.shape),
                 pic->bytes, texture_target(s, st, std::to_string(pic->id)));
  const std::string grid_key = rollout ? "rollout" + std::to_string(a.version)
                                       : "layer" + std::to_string(e.weights) + "|" + std::to_string(a.head);
  draw_map_over(dl, p0, p1, grid, n, n, pic ? a.opacity : 1.0f, 0,
                texture_target(s, st, grid_key + "|query" + std::to_string(a.query)));
  ImGui::InvisibleButton("##patches", ImVec2(side, side));
  if (ImGui::IsItemClicked()) {
    const ImVec2 mp = ImGui::GetIO().MousePos;
    const int r = std::clamp(static_cast<int>((mp.y - p0.y) / side * n), 0, n - 1);
    const int c = std::clamp(static_cast<int>((mp.x - p0.x) / side * n), 0, n - 1);
    a.query = r * n + c + cls;
  }
  if (!pic) insight_hint("no picture of the sample recorded: the map alone");
  ImGui::SetNextItemWidth(side);
  ImGui::SliderFloat("opacity##att", &a.opacity, 0.0f, 1.0f, "opacity %.2f");
}

void draw_controls(AppState& s, InsightsState& st, const std::vector<const AttentionEntry*>& layers, int layer,
                   const AttentionWeights& w, const std::vector<int>& samples, int sample) {
  AttentionState& a = st.attention;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Layer");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  if (ImGui::BeginCombo("##att_layer", layers[layer]->module.c_str())) {
    for (size_t i = 0; i < layers.size(); ++i)
      if (ImGui::Selectable((layers[i]->module + "##" + std::to_string(i)).c_str(), static_cast<int>(i) == layer))
        a.module = layers[i]->module;
    ImGui::EndCombo();
  }
  ImGui::SameLine(0, ImGui::GetFontSize());
  ImGui::TextUnformatted("Head");
  ImGui::SameLine();
  if (ImGui::RadioButton("mean", a.head < 0)) a.head = -1;
  for (int h = 0; h < w.heads && w.heads > 1; ++h) {
    ImGui::SameLine();
    if (ImGui::RadioButton(std::to_string(h).c_str(), a.head == h)) a.head = h;
  }
  if (s.model.samples().followed().empty() && samples.size() > 1) {
    ImGui::SameLine(0, ImGui::GetFontSize());
    ImGui::TextUnformatted("Sample");
    ImGui::SameLine();
    auto it = std::find(samples.begin(), samples.end(), sample);
    const int k = static_cast<int>(it - samples.begin());
    if (ImGui::ArrowButton("##att_prev", ImGuiDir_Left)) st.sample = samples[(k + samples.size() - 1) % samples.size()];
    ImGui::SameLine();
    ImGui::Text("%d", sample);
    ImGui::SameLine();
    if (ImGui::ArrowButton("##att_next", ImGuiDir_Right)) st.sample = samples[(k + 1) % samples.size()];
  }
}

}  // namespace

void draw_attention(AppState& s, InsightsState& st) {
  AttentionState& a = st.attention;
  const AttentionShown v = attention_shown(s, st);
  const int step = v.step, sample = v.sample;
  const std::vector<const AttentionEntry*>& layers = v.layers;
  if (v.state == AttentionShown::State::NoLayers) {
    std::string steps;
    for (const AttentionEntry& e : s.model.insights().attention())
      if (steps.find(" " + std::to_string(e.step) + ",") == std::string::npos) steps += " " + std::to_string(e.step) + ",";
    insight_hint("No attention weights recorded for sample " + std::to_string(sample) + " at step " +
                 std::to_string(step) + (v.samples.empty() ? "" : " (this step has samples of its own: use [ / ])") +
                 "; steps with attention:" + (steps.empty() ? " none" : steps.substr(0, steps.size() - 1)) + ".");
    return;
  }
  const AttentionEntry& e = *v.entry;
  if (v.state == AttentionShown::State::Problem) {
    insight_hint(e.module + ": " + v.problem);
    return;
  }
  const AttentionWeights& w = v.weights;
  draw_controls(s, st, layers, v.layer, w, v.samples, sample);
  const std::vector<double>& m = v.map;
  const std::vector<std::string>& names = v.names;
  const std::vector<double>& mask = v.mask;
  const size_t masked = v.masked;
  const bool causal = v.causal;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::max(120.0f, std::min(avail.x * 0.45f - 130, avail.y - 80));
  ImGui::BeginGroup();
  ImGui::Text("%s, %s%s", e.module.c_str(), a.head < 0 ? "mean over heads" : ("head " + std::to_string(a.head)).c_str(),
              causal ? " — causal mask: entries above the diagonal are masked (grey)"
                     : masked ? " — masked entries are grey" : "");
  insight_hint(origin_caption(e, w.rows, w.cols));
  const widgets::HeatmapResult h = token_map(s, "##att_map", m, w.rows, w.cols, names, side, &a.map_texture,
                                             e.weights * 64 + static_cast<uint64_t>(a.head + 1));
  if (!mask.empty()) draw_mask(s, st, h, mask, w.rows, w.cols, static_cast<uint64_t>(e.mask));
  else if (causal) draw_causal_mask(h, w.rows);
  if (h.hovered) {
    const bool out = !mask.empty() && h.row >= 0 && h.col >= 0 && mask[static_cast<size_t>(h.row) * w.cols + h.col] != 0;
    ImGui::SetTooltip("%s -> %s: %.6g%s", h.row < static_cast<int>(names.size()) ? names[h.row].c_str() : "?",
                      h.col < static_cast<int>(names.size()) ? names[h.col].c_str() : "?", h.value,
                      out ? " (masked)" : "");
  }
  ImGui::TextDisabled("row: the token attending (query); column: the token attended to (key)");
  ImGui::EndGroup();
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  ImGui::BeginGroup();
  ImGui::TextUnformatted("Heads of this layer (click one)");
  draw_head_grid(s, a, w, e.weights);
  ImGui::Spacing();
  const int n = static_cast<int>(layers.size());
  ImGui::Text("Rollout over layers");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  int first = a.first, last = a.last < 0 ? n - 1 : a.last;
  if (ImGui::SliderInt("##roll_first", &first, 0, n - 1, "from %d")) a.first = first;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  if (ImGui::SliderInt("##roll_last", &last, 0, n - 1, "to %d")) a.last = last;
  attention_rollout_update(s, st, layers);
  // An image model's picture goes below the rollout, both in the window's
  // height: the picture gets up to 45% of what the fixed rows (rollout
  // labels, radio line, slider, a hint) leave, the rollout the rest.
  const bool image_model = v.image;
  const float room = height_left() - 3 * ImGui::GetFrameHeightWithSpacing() -
                     2 * ImGui::GetTextLineHeightWithSpacing();
  const float picture_side = image_model ? std::min({ImGui::GetContentRegionAvail().x, kPictureMaxSide, room * 0.45f}) : 0.0f;
  const float rollout_room = room - picture_side;
  if (!a.rollout.empty()) {
    const float rside = std::max(100.0f, std::min({ImGui::GetContentRegionAvail().x - 140, avail.y * 0.45f, rollout_room}));
    token_map(s, "##rollout", a.rollout, w.rows, w.rows, names, rside, &a.rollout_texture, a.version);
  } else {
    insight_hint(a.rollout_problem);
  }
  draw_on_picture(s, st, v);
  ImGui::EndGroup();
}

json attention_command(AppState& s, InsightsState& st, const json& cmd) {
  AttentionState& a = st.attention;
  (void)s;
  if (cmd.contains("head")) {
    const json& v = cmd["head"];
    if (v.is_null() || (v.is_string() && v == "mean")) a.head = -1;
    else if (v.is_number_integer() && v.get<int>() >= -1) a.head = v.get<int>();
    else return false;
    return true;
  }
  if (cmd.contains("module")) {
    if (!cmd["module"].is_string() && !cmd["module"].is_number_integer()) return false;  // "0": a link's number
    a.module = (cmd["module"].is_string() ? cmd["module"].get<std::string>() : cmd["module"].dump());
    return true;
  }
  if (cmd.contains("rollout")) {  // {"rollout": [first, last]}: layer indices of the step, inclusive
    const json v = cmd["rollout"].is_string() ? json::parse(cmd["rollout"].get<std::string>(), nullptr, false) : cmd["rollout"];
    if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer()) return false;
    a.first = v[0].get<int>();
    a.last = v[1].get<int>();
    return true;
  }
  if (cmd.contains("paint")) {  // {"paint": "rollout" | "layer"}: what an image model's picture shows
    if (cmd["paint"] != "rollout" && cmd["paint"] != "layer") return false;
    a.paint_rollout = cmd["paint"] == "rollout";
    return true;
  }
  if (cmd.contains("query")) {
    if (!cmd["query"].is_number_integer()) return false;
    a.query = cmd["query"].get<int>();
    return true;
  }
  return nullptr;
}

}  // namespace tvis::viewer
