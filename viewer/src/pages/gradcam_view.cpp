// Insights → Grad-CAM: over the shown sample's picture, one conv layer's
// Grad-CAM map (the recorder's ReLU(Σ_c mean_hw(dS/dA_c) A_c), as recorded)
// for the predicted class or, where recorded with --gradcam-true, the true
// class; opacity and colormap controls; the class scores beside (the loss's
// logits row); a strip of every conv layer for the sample to compare depth
// (click one to show it). A misclassified sample without a true-class map
// says how to record one.
#include <imgui.h>

#include <algorithm>

#include "../panels/picture.h"
#include "insights_state.h"
#include "tvis/widgets/bar_chart.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

std::vector<const GradCamEntry*> maps_of(AppState& s, int step, int sample, bool true_class) {
  std::vector<const GradCamEntry*> out;
  for (const GradCamEntry& e : s.model.insights().gradcam())
    if (e.step == step && e.sample == sample && e.true_class == true_class) out.push_back(&e);
  return out;
}

std::vector<int> samples_at(AppState& s, int step) {
  std::vector<int> out;
  for (const GradCamEntry& e : s.model.insights().gradcam())
    if (e.step == step && std::find(out.begin(), out.end(), e.sample) == out.end()) out.push_back(e.sample);
  return out;
}

// The map as [h, w] values, or why not.
std::shared_ptr<const DecodedTensor> map_values(AppState& s, const GradCamEntry& e, int* rows, int* cols,
                                                std::string* problem) {
  std::shared_ptr<const DecodedTensor> d = decoded_tensor(s, e.map, e.step);
  if (d->loading) return *problem = "loading ...", nullptr;
  if (!d->error.empty()) return *problem = d->error, nullptr;
  if (d->values.shape.size() != 2) return *problem = "a Grad-CAM map that is not [h, w]", nullptr;
  *rows = static_cast<int>(d->values.shape[0]);
  *cols = static_cast<int>(d->values.shape[1]);
  return d;
}

// The picture (or a dark square) with the map over it, in a side x side box.
void draw_cam(AppState& s, InsightsState& st, const GradCamEntry& e, const std::vector<double>& map, int rows, int cols,
              float side, float opacity) {
  const std::shared_ptr<const DecodedTensor> pic = sample_picture(s, e.step, e.sample);
  const PictureLayout pl = pic ? picture_layout(pic->values.shape) : PictureLayout{};
  const ImVec2 box = fit_picture(static_cast<float>(pic ? pl.width : cols), static_cast<float>(pic ? pl.height : rows),
                                 ImVec2(side, side));
  const ImVec2 p0 = ImGui::GetCursorScreenPos(), p1(p0.x + box.x, p0.y + box.y);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, p1, IM_COL32(20, 20, 20, 255));
  if (pic)
    draw_picture(dl, p0, p1, pic->values.values.data(), pic->values.values.size(), pl, pic->bytes,
                 texture_target(s, st, std::to_string(pic->id)));
  draw_map_over(dl, p0, p1, map, rows, cols, pic ? opacity : 1.0f, st.gradcam.colormap,
                texture_target(s, st, std::to_string(e.map)));
  ImGui::Dummy(box);
}

// The class scores of the sample's row: the loss's logits, predicted highlighted.
void draw_scores(AppState& s, InsightsState& st, int step, int row, int64_t shown_class) {
  const std::optional<LossEntry> loss = s.model.losses().shown(step, 0);
  if (!loss || loss->logits < 0) return insight_hint("no class scores recorded at this step");
  const std::shared_ptr<const DecodedTensor> decoded = decoded_tensor(s, static_cast<uint64_t>(loss->logits), step);
  const DecodedTensor& d = *decoded;
  if (d.loading) return insight_hint("loading class scores ...");
  if (!d.error.empty() || d.values.shape.size() != 2) return insight_hint("class scores: " + (d.error.empty() ? std::string("not [batch, classes]") : d.error));
  const int classes = static_cast<int>(d.values.shape[1]);
  if (row < 0 || row >= d.values.shape[0]) return insight_hint("class scores: the sample's row was not kept (tvis run --max-elems)");
  std::vector<std::string> names;
  for (int c = 0; c < classes; ++c) names.push_back("class " + std::to_string(c));
  std::vector<const char*> labels;
  for (const auto& n : names) labels.push_back(n.c_str());
  ImGui::TextUnformatted("Class scores (logits)");
  widgets::BarChartOptions o;
  o.highlight = static_cast<int>(shown_class);
  o.size = ImVec2(ImGui::GetFontSize() * 16, 0);
  widgets::bar_chart("##cam_scores", widgets::ValueSpan(d.values.values.data() + static_cast<size_t>(row) * classes, classes),
                     labels.data(), o);
}

void draw_controls(AppState& s, InsightsState& st, const std::vector<const GradCamEntry*>& maps, int layer,
                   const std::vector<int>& samples, int sample) {
  GradCamState& g = st.gradcam;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Layer");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
  if (ImGui::BeginCombo("##cam_layer", maps[layer]->module.c_str())) {
    for (size_t i = 0; i < maps.size(); ++i)
      if (ImGui::Selectable(maps[i]->module.c_str(), static_cast<int>(i) == layer)) g.module = maps[i]->module;
    ImGui::EndCombo();
  }
  ImGui::SameLine(0, ImGui::GetFontSize());
  if (ImGui::RadioButton("predicted class", !g.true_class)) g.true_class = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("true class", g.true_class)) g.true_class = true;
  ImGui::SameLine(0, ImGui::GetFontSize());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  ImGui::SliderFloat("##cam_opacity", &g.opacity, 0.0f, 1.0f, "opacity %.2f");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  const char* maps_names[] = {"sequential", "diverging"};
  ImGui::Combo("##cam_cmap", &g.colormap, maps_names, 2);
  if (s.model.samples().followed().empty() && samples.size() > 1) {
    ImGui::SameLine(0, ImGui::GetFontSize());
    auto it = std::find(samples.begin(), samples.end(), sample);
    const size_t k = static_cast<size_t>(it - samples.begin());
    if (ImGui::ArrowButton("##cam_prev", ImGuiDir_Left)) st.sample = samples[(k + samples.size() - 1) % samples.size()];
    ImGui::SameLine();
    ImGui::Text("sample %d", sample);
    ImGui::SameLine();
    if (ImGui::ArrowButton("##cam_next", ImGuiDir_Right)) st.sample = samples[(k + 1) % samples.size()];
  }
}

void draw_strip(AppState& s, InsightsState& st, const std::vector<const GradCamEntry*>& maps, int layer) {
  ImGui::TextUnformatted("Every conv layer for this sample, shallow to deep (click one)");
  const float side = std::clamp(ImGui::GetContentRegionAvail().x / std::max<size_t>(maps.size(), 1) - 10, 56.0f, 120.0f);
  ImGui::BeginChild("##cam_strip", ImVec2(0, side + ImGui::GetTextLineHeightWithSpacing() * 2 + 12), false,
                    ImGuiWindowFlags_HorizontalScrollbar);
  for (size_t i = 0; i < maps.size(); ++i) {
    if (i) ImGui::SameLine();
    ImGui::BeginGroup();
    int rows = 0, cols = 0;
    std::string problem;
    const std::shared_ptr<const DecodedTensor> m = map_values(s, *maps[i], &rows, &cols, &problem);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    if (m) draw_cam(s, st, *maps[i], m->values.values, rows, cols, side, st.gradcam.opacity);
    else ImGui::Dummy(ImVec2(side, side));
    if (static_cast<int>(i) == layer)
      ImGui::GetWindowDrawList()->AddRect(p0, ImVec2(p0.x + side, p0.y + side), IM_COL32(255, 179, 92, 255), 0, 0, 2);
    ImGui::SetCursorScreenPos(p0);
    if (ImGui::InvisibleButton(("##strip" + std::to_string(i)).c_str(), ImVec2(side, side))) st.gradcam.module = maps[i]->module;
    std::string label = maps[i]->module;
    if (ImGui::CalcTextSize(label.c_str()).x > side) label = "…" + label.substr(label.size() - std::min<size_t>(label.size(), 10));
    ImGui::TextUnformatted(label.c_str());
    ImGui::EndGroup();
  }
  ImGui::EndChild();
}

// Why the true-class map is missing: the sample was misclassified and the run had no --gradcam-true.
std::string missing_true_reason(AppState& s, int step, int sample) {
  for (const GradCamEntry& e : s.model.insights().gradcam())
    if (e.step == step && e.sample == sample)
      return "Sample " + std::to_string(sample) + " has no true-class map at step " + std::to_string(step) +
             ": the model predicted class " + std::to_string(e.class_index) +
             ", not its true class, and true-class maps of misclassified samples are recorded only with "
             "`tvis run --gradcam-true` (one more gradient pass each).";
  return "No Grad-CAM map for sample " + std::to_string(sample) + " at this step.";
}

}  // namespace

void draw_gradcam(AppState& s, InsightsState& st) {
  GradCamState& g = st.gradcam;
  g.view = nullptr;
  const int step = s.selection.step;
  const std::vector<int> samples = samples_at(s, step);
  const int sample = insight_sample(s, st, samples);
  std::vector<const GradCamEntry*> maps = maps_of(s, step, sample, g.true_class);
  if (maps.empty() && g.true_class && !maps_of(s, step, sample, false).empty()) {
    const std::string reason = missing_true_reason(s, step, sample);
    insight_hint(reason);
    g.view = {{"module", nullptr}, {"step", step}, {"sample", sample},
              {"class", nullptr}, {"target", "true"}, {"map", nullptr}, {"true_class_hint", reason}};
    if (ImGui::Button("show the predicted class")) g.true_class = false;
    return;
  }
  if (maps.empty()) {
    insight_hint(samples.empty() ? "No Grad-CAM maps at step " + std::to_string(step) + "."
                                 : "No Grad-CAM map for sample " + std::to_string(sample) + " at step " +
                                       std::to_string(step) + " (it is not in this step's batch; use [ / ]).");
    return;
  }
  int layer = 0;
  for (size_t i = 0; i < maps.size(); ++i)
    if (maps[i]->module == g.module) layer = static_cast<int>(i);
  const GradCamEntry& e = *maps[layer];
  draw_controls(s, st, maps, layer, samples, sample);
  int rows = 0, cols = 0;
  std::string problem;
  const std::shared_ptr<const DecodedTensor> decoded = map_values(s, e, &rows, &cols, &problem);
  if (!decoded) return insight_hint(e.module + ": " + problem);
  const std::vector<double>* m = &decoded->values.values;
  const int row = sample_row(s.model, step, sample);
  ImGui::Text("%s, sample %d, %s class %lld (%dx%d map)", e.module.c_str(), sample, e.true_class ? "true" : "predicted",
              static_cast<long long>(e.class_index), rows, cols);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::max(120.0f, std::min(avail.x * 0.55f, avail.y - 200));
  draw_cam(s, st, e, *m, rows, cols, side, g.opacity);
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  ImGui::BeginGroup();
  draw_scores(s, st, step, row, e.class_index);
  const bool no_true = maps_of(s, step, sample, true).empty();
  if (!g.true_class && no_true) {
    ImGui::Spacing();
    insight_hint(missing_true_reason(s, step, sample));
  }
  ImGui::EndGroup();
  draw_strip(s, st, maps, layer);

  json map = json::array();
  for (int r = 0; r < rows; ++r)
    map.push_back(std::vector<double>(m->begin() + static_cast<size_t>(r) * cols, m->begin() + static_cast<size_t>(r + 1) * cols));
  json layers = json::array();
  for (const auto* x : maps) layers.push_back(x->module);
  g.view = {{"module", e.module}, {"step", step},       {"sample", sample},
            {"class", e.class_index}, {"target", e.true_class ? "true" : "predicted"}, {"map", map},
            {"layers", layers}, {"opacity", g.opacity},
            {"true_class_hint", no_true ? json(missing_true_reason(s, step, sample)) : json(nullptr)}};
}

json gradcam_command(AppState& s, InsightsState& st, const json& cmd) {
  (void)s;
  GradCamState& g = st.gradcam;
  if (cmd.contains("module")) {
    if (!cmd["module"].is_string() && !cmd["module"].is_number_integer()) return false;  // "0": a link's number
    g.module = (cmd["module"].is_string() ? cmd["module"].get<std::string>() : cmd["module"].dump());
    return true;
  }
  if (cmd.contains("target")) {
    if (cmd["target"] != "predicted" && cmd["target"] != "true") return false;
    g.true_class = cmd["target"] == "true";
    return true;
  }
  if (cmd.contains("opacity")) {
    if (!cmd["opacity"].is_number()) return false;
    g.opacity = std::clamp(cmd["opacity"].get<float>(), 0.0f, 1.0f);
    return true;
  }
  return nullptr;
}

}  // namespace tvis::viewer
