// The shared per-layer panel: its header and tabs (layer_view.h). What it
// shows is picked in layer_pick.cpp; each tab draws in its own file.
#include "layer_view.h"

#include <imgui.h>

#include "budget_thumbnail.h"
#include "layer_parts.h"

namespace tvis::viewer {

namespace {

constexpr const char* kTabNames[] = {"On image", "Neurons", "Stats"};

// Module, class, activation / gradient, the sample and its row.
void draw_header(LayerViewState& v, const LayerTarget& t, const CallRef& call, int row) {
  ImGui::TextUnformatted(v.module.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%s", std::string(call.class_name()).c_str());
  ImGui::SameLine();
  if (t.gradient) {
    ImGui::TextDisabled("| %s", v.of_gradient ? "gradient dL/d(output)" : "activation");
  } else {
    int of = v.gradient ? 1 : 0;
    ImGui::RadioButton("activation", &of, 0);
    ImGui::SameLine();
    ImGui::RadioButton("gradient", &of, 1);
    v.gradient = of == 1;
    v.of_gradient = v.gradient;
  }
  ImGui::SameLine();
  if (t.sample >= 0) ImGui::TextDisabled("| sample %d, row %d", t.sample, row);
  else ImGui::TextDisabled("| batch row 0 (no followed samples)");
}

void draw_tab(PanelContext& c, LayerViewState& v, const CallRef& call, const LayerPick& p, int tab) {
  if (tab == LayerViewState::Stats) {
    draw_stats(c, v, call);
  } else if (!p.problem.empty()) {
    say(p.problem, p.problem.find("loading") == 0 ? colors::kMuted : colors::kWarning);
    if (p.shows_thumbnail()) draw_budget_thumbnail(c, p.shown, v.thumbnail_texture);
  } else if (tab == LayerViewState::OnImage) {
    draw_on_image(c, v);
  } else {
    draw_neurons(c, v);
  }
}

}  // namespace

const char* layer_tab_name(int tab) { return kTabNames[std::clamp(tab, 0, 2)]; }

void draw_layer_view(PanelContext& c, LayerViewState& v, const LayerTarget& t) {
  v.shown = false;
  const CallRef call = c.model.call(t.event);
  if (!call) {
    ImGui::TextDisabled("loading the call ...");
    return;
  }
  if (call.kind() != EventKind::ModuleCall) {
    ImGui::TextDisabled("Not a module call: no layer view.");
    return;
  }
  v.shown = true;
  v.target = t;
  v.module = std::string(call.name());
  v.of_gradient = t.gradient ? *t.gradient : v.gradient;
  if (v.tab_request) v.tab = *v.tab_request;
  const int row = sample_row(c.model, t.step, t.sample);
  draw_header(v, t, call, row);

  const LayerPick p = pick_layer(c.model, v, call);
  if (v.of_gradient) v.attention.found = false;  // attention weights are the forward's: a gradient shows its strength
  else resolve_layer_attention(c, v.attention, t.event, t.step, t.sample);
  if (ImGui::BeginTabBar("layer_tabs")) {
    for (int i = 0; i < 3; ++i) {
      ImGuiTabItemFlags f = v.tab_request && *v.tab_request == i ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(kTabNames[i], nullptr, f)) {
        v.tab = i;
        ImGui::BeginChild("layer_body", ImVec2(0, 0), false);
        draw_tab(c, v, call, p, i);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  v.tab_request.reset();
}

}  // namespace tvis::viewer
