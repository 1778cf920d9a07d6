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
#include "gradcam_shown.h"
#include "tvis/widgets/bar_chart.h"

namespace tvis::viewer {

using nlohmann::json;

namespace {

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
    const std::shared_ptr<const DecodedTensor> m = gradcam_map_values(s, *maps[i], &rows, &cols, &problem);
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

}  // namespace

void draw_gradcam(AppState& s, InsightsState& st) {
  GradCamState& g = st.gradcam;
  const GradCamShown shown = gradcam_shown(s, st);
  const int step = shown.step, sample = shown.sample;
  if (shown.state == GradCamShown::State::NoTrueMap) {
    insight_hint(shown.true_hint);
    if (ImGui::Button("show the predicted class")) g.true_class = false;
    return;
  }
  if (shown.state == GradCamShown::State::NoMaps) {
    insight_hint(shown.samples.empty() ? "No Grad-CAM maps at step " + std::to_string(step) + "."
                                       : "No Grad-CAM map for sample " + std::to_string(sample) + " at step " +
                                             std::to_string(step) + " (it is not in this step's batch; use [ / ]).");
    return;
  }
  const GradCamEntry& e = *shown.entry;
  draw_controls(s, st, shown.maps, shown.layer, shown.samples, sample);
  if (shown.state == GradCamShown::State::Problem) return insight_hint(e.module + ": " + shown.problem);
  const int rows = shown.rows, cols = shown.cols;
  const int row = sample_row(s.model, step, sample);
  ImGui::Text("%s, sample %d, %s class %lld (%dx%d map)", e.module.c_str(), sample, e.true_class ? "true" : "predicted",
              static_cast<long long>(e.class_index), rows, cols);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::max(120.0f, std::min(avail.x * 0.55f, avail.y - 200));
  draw_cam(s, st, e, shown.map->values.values, rows, cols, side, g.opacity);
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  ImGui::BeginGroup();
  draw_scores(s, st, step, row, e.class_index);
  if (!g.true_class && shown.no_true) {
    ImGui::Spacing();
    insight_hint(shown.true_hint);
  }
  ImGui::EndGroup();
  draw_strip(s, st, shown.maps, shown.layer);
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
