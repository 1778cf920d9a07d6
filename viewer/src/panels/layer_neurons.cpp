// The layer panel's Neurons tab: every channel / hidden dim as its own small
// map, strongest first, or labelled bars for a vector; a click shows one
// neuron's numbers (layer_view.h).
#include <algorithm>
#include <cmath>

#include "layer_parts.h"
#include "tvis/widgets/bar_chart.h"
#include "tvis/widgets/format_number.h"
#include "tvis/widgets/heatmap.h"

namespace tvis::viewer {

namespace {

constexpr int kNeuronMaxBlocks = 12;  // a neuron thumbnail's cells per side at most

void draw_neuron_detail(PanelContext& c, LayerViewState& v) {
  const LayerMaps& m = v.maps;
  const int n = v.picked_neuron;
  ImGui::Text("neuron %d", n);
  ImGui::SameLine();
  ImGui::TextDisabled("mean |x| %s", widgets::format_exact(m.strength[n]).c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("back to all")) v.picked_neuron = -1;
  if (m.neuron_rows <= 0) return;
  std::vector<double> cells(static_cast<size_t>(m.neuron_rows) * m.neuron_cols);
  for (int r = 0; r < m.neuron_rows; ++r)
    for (int col = 0; col < m.neuron_cols; ++col) cells[static_cast<size_t>(r) * m.neuron_cols + col] = m.neuron_at(n, r, col);
  widgets::HeatmapOptions o;
  o.colormap = widgets::Colormap::Diverging;
  o.symmetric = true;
  o.uploader = c.options.texture_uploader;
  o.texture = &v.neuron_texture;
  o.data_version = v.texture_version * 100000 + static_cast<uint64_t>(n);
  o.size = ImVec2(0, std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().y - 4));
  widgets::heatmap("##neuron", widgets::ValueSpan(cells), m.neuron_rows, m.neuron_cols, o);
}

}  // namespace

void draw_neurons(PanelContext& c, LayerViewState& v) {
  const LayerMaps& m = v.maps;
  const float em = ImGui::GetFontSize();
  if (m.neurons == 0) {
    say("No neurons: the tensor is empty.");
    return;
  }
  if (m.layout == LayerMaps::Layout::Vector || m.layout == LayerMaps::Layout::Other) {
    // A classifier's logits (the output a loss of the step took as logits):
    // each bar named by its class where the samples carry class names.
    const std::vector<std::string> neuron_names = neuron_labels(c.model, v);
    ImGui::TextDisabled("%d values, largest |x| first%s", m.neurons,
                        neuron_names.empty() ? "" : "; the logits, by class");
    std::vector<std::string> names(static_cast<size_t>(m.neurons));
    std::vector<const char*> labels(names.size());
    for (int i = 0; i < m.neurons; ++i) {
      names[i] = neuron_names.empty() ? std::to_string(i) : neuron_names[static_cast<size_t>(i)];
      labels[i] = names[i].c_str();
    }
    std::vector<double> shown(m.values.begin(), m.values.end());
    std::vector<double> ordered(shown.size());
    std::vector<const char*> ordered_labels(shown.size());
    for (size_t i = 0; i < m.order.size(); ++i) {
      ordered[i] = shown[m.order[i]];
      ordered_labels[i] = labels[m.order[i]];
    }
    widgets::BarChartOptions o;
    o.size = ImVec2(0, std::max(em * 6, ImGui::GetContentRegionAvail().y - 4));
    // The picked bar's exact number above the chart (a click picks, another click on it drops).
    const bool picked = v.picked_neuron >= 0 && v.picked_neuron < m.neurons;
    if (picked) {
      const int n = v.picked_neuron;
      const int rank = static_cast<int>(std::find(m.order.begin(), m.order.end(), n) - m.order.begin());
      ImGui::Text("value %d%s%s = %s", n, neuron_names.empty() ? "" : " ",
                  neuron_names.empty() ? "" : neuron_names[static_cast<size_t>(n)].c_str(),
                  widgets::format_exact(m.values[static_cast<size_t>(n)]).c_str());
      ImGui::SameLine();
      ImGui::TextDisabled("(rank %d of %d by |x|)", rank + 1, m.neurons);
      ImGui::SameLine();
      if (ImGui::SmallButton("clear")) v.picked_neuron = -1;
    } else {
      ImGui::TextDisabled("click a bar for its exact value");
    }
    o.size = ImVec2(0, std::max(em * 6, ImGui::GetContentRegionAvail().y - 4));
    widgets::BarChartResult r = widgets::bar_chart("##bars", widgets::ValueSpan(ordered), ordered_labels.data(), o);
    if (r.clicked && r.index >= 0) v.picked_neuron = v.picked_neuron == m.order[r.index] ? -1 : m.order[r.index];
    return;
  }
  if (v.picked_neuron >= 0 && v.picked_neuron < m.neurons) {
    draw_neuron_detail(c, v);
    return;
  }
  ImGui::TextDisabled("%d %s, most active first (mean |x|); click one for its numbers", m.neurons,
                      m.layout == LayerMaps::Layout::Conv ? "channels" : "dims");
  const float thumb = em * 4.2f;
  const float cell_w = thumb + em * 0.6f;
  ImGui::BeginChild("neuron_grid", ImVec2(0, 0), false);
  const int per_row = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / cell_w));
  const int rows = (m.neurons + per_row - 1) / per_row;
  double hi = 0;
  for (double s : m.values) hi = std::max(hi, std::fabs(s));
  ImGuiListClipper clip;
  clip.Begin(rows, thumb + em * 1.4f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  while (clip.Step())
    for (int row = clip.DisplayStart; row < clip.DisplayEnd; ++row) {
      for (int k = 0; k < per_row; ++k) {
        const int idx = row * per_row + k;
        if (idx >= m.neurons) break;
        const int n = m.order[idx];
        if (k) ImGui::SameLine();
        ImGui::BeginGroup();
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        ImGui::PushID(n);
        ImGui::InvisibleButton("##n", ImVec2(thumb, thumb));
        const bool hover = ImGui::IsItemHovered();
        if (ImGui::IsItemClicked()) v.picked_neuron = n;
        ImGui::PopID();
        draw_grid(dl, p0, ImVec2(p0.x + thumb, p0.y + thumb), m.neuron_rows, m.neuron_cols,
                  [&](int r, int col) { return std::fabs(m.neuron_at(n, r, col)); }, hi, 1.0f, kNeuronMaxBlocks,
                  TextureTarget{&v.textures, c.options.texture_uploader,
                                "neuron" + std::to_string(v.texture_version) + "|" + std::to_string(n)});
        if (hover) {
          dl->AddRect(p0, ImVec2(p0.x + thumb, p0.y + thumb), IM_COL32(255, 255, 255, 255));
          ImGui::SetTooltip("%s %d: mean |x| = %s", m.layout == LayerMaps::Layout::Conv ? "channel" : "dim", n,
                            widgets::format_exact(m.strength[n]).c_str());
        }
        ImGui::TextDisabled("#%d", n);
        ImGui::EndGroup();
      }
    }
  ImGui::EndChild();
}

}  // namespace tvis::viewer
