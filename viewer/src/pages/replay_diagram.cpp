// Replay's model diagram: the step's forward module calls as a layered
// column of boxes in call order (containers indented over their parts,
// collapsible; consecutive blocks of the same class folded into one box),
// coloured by the phase: forward lights each layer up with its output's
// mean |x| as it runs; backward colours by ||dL/d(output)|| on a log scale;
// the optimizer by ||dw|| / ||w||. The current layer is outlined and kept in
// view; a container holding it is opened.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_set>

#include "../panels/panel_labels.h"
#include "../theme.h"
#include "replay_state.h"
#include "tvis/widgets/colormap.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

namespace {


struct Scale {
  bool log = false;
  double lo = 0, hi = 1;
  const char* what = "";
  double t(double v) const {
    if (!(v > 0) && log) return 0;
    if (log) return hi > lo ? (std::log10(v) - lo) / (hi - lo) : 1.0;
    return hi > lo ? (v - lo) / (hi - lo) : 1.0;
  }
};

void draw_legend(const Scale& sc) {
  const float em = ImGui::GetFontSize();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("%s", sc.what);  // a fallback's reason is long: wrapped, never clipped
  ImGui::PopStyleColor();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int n = 48;
  for (int i = 0; i < n; ++i)
    dl->AddRectFilled(ImVec2(p0.x + w * i / n, p0.y), ImVec2(p0.x + w * (i + 1) / n + 1, p0.y + em * 0.6f),
                      widgets::colormap_sample(widgets::Colormap::Sequential, static_cast<double>(i) / (n - 1)));
  ImGui::Dummy(ImVec2(w, em * 0.7f));
  auto label = [&](double t) {
    const double v = sc.log ? std::pow(10.0, sc.lo + (sc.hi - sc.lo) * t) : sc.lo + (sc.hi - sc.lo) * t;
    return widgets::format_number(v, 3);
  };
  const std::string a = label(0), b = label(0.5), c = label(1);
  ImGui::TextDisabled("%s", a.c_str());
  ImGui::SameLine(std::max(0.0f, w * 0.5f - ImGui::CalcTextSize(b.c_str()).x * 0.5f));
  ImGui::TextDisabled("%s", b.c_str());
  ImGui::SameLine(std::max(0.0f, w - ImGui::CalcTextSize(c.c_str()).x));
  ImGui::TextDisabled("%s", c.c_str());
}

// The forward legend: whose mean |output| the boxes show.
std::string activation_legend(int sample, int row, const SampleActivation* own, int from_sample, int from_batch) {
  const std::string base = "activation: mean |output|";
  if (from_sample == 0 && from_batch == 0 && (!own || own->complete))
    return base + ", each layer as the forward reaches it";
  if (sample < 0) return base + " of the batch (the run follows no samples)";
  const std::string who = " of sample " + std::to_string(sample);
  if (row < 0) return base + " of the batch (sample " + std::to_string(sample) + "'s row is loading or not in this batch)";
  if (from_batch == 0) return base + who + (from_sample == 0 ? " (loading ...)" : "");
  const std::string why = own && own->complete ? " beyond `tvis run --max-elems`)" : " yet: loading ...)";
  if (from_sample == 0) return base + " of the batch (sample " + std::to_string(sample) + "'s values not kept" + why;
  const std::string out = base + who + " (" + std::to_string(from_batch) + " layer" + (from_batch > 1 ? "s" : "") +
                          ": the batch's, their values not kept" + why;
  return out;
}

}  // namespace

DiagramColours diagram_colours(AppState& s, ReplayState& r) {
  DiagramColours out;
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  const Diagram* d = plan ? s.model.diagrams().at(r.step) : nullptr;
  if (!d || d->nodes.empty()) return out;
  const Stop* here = current_stop(s, r);
  const Phase phase = here ? here->phase : Phase::None;
  const int sample_pos = s.selection.sample_cursor;
  const StepMagnitudes& mag = s.model.layer_magnitudes().at(*plan);
  out.value.assign(d->nodes.size(), -1.0);
  if (phase == Phase::Backward) {
    out.log = true;
    out.legend = mag.sample_gradient.empty() ? "||dL/d(output)||, batch (log scale)"
                                             : "||dL/d(output)|| of the followed sample (log scale)";
    for (size_t i = 0; i < d->nodes.size(); ++i) out.value[i] = mag.gradient_of(d->nodes[i].event, sample_pos);
  } else if (phase == Phase::Optimizer) {
    out.log = true;
    out.legend = "relative update ||dw|| / ||w|| (log scale)";
    for (size_t i = 0; i < d->nodes.size(); ++i) {
      auto u = mag.update_ratio.find(d->nodes[i].name);
      if (u != mag.update_ratio.end()) out.value[i] = u->second;
    }
  } else {
    // The forward lights the layers up in turn: a call is coloured once the
    // position has reached it (so a first page reads no layer's values), by
    // the followed sample's row where its values are kept, else by the
    // batch's recorded statistics; the legend says which.
    const size_t through = r.stop >= 0 ? static_cast<size_t>(r.stop) + 1 : 0;
    std::unordered_set<uint64_t> reached;
    for (size_t i = 0; i < std::min(through, plan->stops.size()); ++i) reached.insert(plan->stops[i].event);
    const int sample = replay_sample(s);
    const int row = sample >= 0 ? sample_row(s.model, r.step, sample) : -1;
    const SampleActivation* own = row >= 0 ? &s.model.layer_magnitudes().sample_activation(*plan, row, through) : nullptr;
    int from_sample = 0, from_batch = 0;
    for (size_t i = 0; i < d->nodes.size(); ++i) {
      const uint64_t ev = d->nodes[i].event;
      // not run yet at this position (a container, until its last part has run)
      if (!reached.count(ev) || !reached.count(d->nodes[static_cast<size_t>(d->nodes[i].end)].event)) continue;
      if (own) {
        auto a = own->mean_abs.find(ev);
        if (a != own->mean_abs.end()) {
          out.value[i] = a->second;
          ++from_sample;
          continue;
        }
      }
      auto a = mag.activation.find(ev);
      if (a != mag.activation.end()) {
        out.value[i] = a->second;
        ++from_batch;
      }
    }
    out.legend = activation_legend(sample, row, own, from_sample, from_batch);
  }
  return out;
}

void draw_replay_diagram(AppState& s, ReplayState& r) {
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  if (!plan) {
    ImGui::TextDisabled("loading step %d ...", r.step);
    return;
  }
  const Diagram& d = *s.model.diagrams().at(r.step);  // the plan is there, so is its diagram
  const Stop* here = current_stop(s, r);
  const Phase phase = here ? here->phase : Phase::None;

  if (d.nodes.empty()) {
    ImGui::TextDisabled("No module calls in this step's forward:");
    ImGui::TextDisabled("the model is not an nn.Module, or the step has no forward.");
    return;
  }
  // Which node is current (forward / backward stops), and the value of each.
  int current = -1;
  if (here && (phase == Phase::Forward || phase == Phase::Backward))
    for (size_t i = 0; i < d.nodes.size(); ++i)
      if (d.nodes[i].event == here->event) current = static_cast<int>(i);
  const DiagramColours colours = diagram_colours(s, r);
  const std::vector<double>& value = colours.value;
  Scale sc;
  sc.log = colours.log;
  sc.what = colours.legend.c_str();
  double lo = INFINITY, hi = -INFINITY;
  for (double v : value)
    if (v > 0 || (!sc.log && v >= 0)) {
      const double x = sc.log ? std::log10(v) : v;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  if (!(hi >= lo)) lo = 0, hi = 1;
  if (!sc.log) lo = 0;
  sc.lo = lo;
  sc.hi = hi;

  // Lit: forward up to the current call; backward from the loss down to it.
  auto lit = [&](int i) {
    const DiagramNode& n = d.nodes[i];
    switch (phase) {
      case Phase::Data: return false;
      case Phase::Forward: return here && n.forward_stop <= r.stop;
      case Phase::Backward: return here && n.backward_stop >= 0 && n.backward_stop <= r.stop;
      case Phase::Optimizer: return value[i] >= 0;
      default: return true;  // loss: the whole forward has run
    }
  };

  if (!d.root.empty()) {
    ImGui::TextUnformatted(d.root.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s", d.root_cls.c_str());
  }
  draw_legend(sc);
  ImGui::Checkbox("fold repeated blocks", &r.fold_repeats);
  ImGui::Separator();

  ImGui::BeginChild("diagram_boxes", ImVec2(0, 0), false);
  const float em = ImGui::GetFontSize();
  const float box_h = em * 1.45f, gap = em * 0.35f, indent = em * 0.9f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float prev_mid_x = -1, prev_bottom = -1;
  const int n = static_cast<int>(d.nodes.size());
  for (int i = 0; i < n;) {
    const DiagramNode& node = d.nodes[i];
    const bool container = node.end > i;
    const bool holds_current = current >= 0 && (current == i || (container && d.contains(i, current)));
    bool open = container && (r.expanded.count(node.name) || (node.depth == 0 && !r.collapsed.count(node.name)) ||
                              (holds_current && current != i && !r.collapsed.count(node.name)));
    if (r.collapsed.count(node.name) && !r.expanded.count(node.name)) open = false;
    // Fold a run of same-class closed siblings that holds nothing current.
    int run_end = i;
    if (r.fold_repeats && container && !open && !holds_current) {  // blocks, not single layers
      int j = node.end + 1;
      while (j < n && d.nodes[j].parent == node.parent && d.nodes[j].cls == node.cls && (d.nodes[j].end > j) == container &&
             !(current >= 0 && current >= j && current <= d.nodes[j].end) && !r.expanded.count(d.nodes[j].name) &&
             !r.expanded.count("fold:" + node.name)) {
        run_end = j;
        j = d.nodes[j].end + 1;
      }
    }
    const int folded = [&] {
      int k = 0;
      for (int j = i; j <= run_end; j = d.nodes[j].end + 1) ++k;
      return k;
    }();
    const float x0 = ImGui::GetCursorScreenPos().x + node.depth * indent;
    const float width = ImGui::GetContentRegionAvail().x - node.depth * indent;
    ImGui::SetCursorScreenPos(ImVec2(x0, ImGui::GetCursorScreenPos().y));
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const ImVec2 p1(p0.x + width, p0.y + box_h);
    ImGui::PushID(i);
    ImGui::InvisibleButton("##box", ImVec2(std::max(1.0f, width), box_h));
    const bool hovered = ImGui::IsItemHovered();
    if (ImGui::IsItemClicked()) {
      if (folded > 1) {
        r.expanded.insert("fold:" + node.name);
      } else if (container && ImGui::GetIO().MousePos.x < p0.x + em * 1.4f) {
        if (open) {
          r.collapsed.insert(node.name);
          r.expanded.erase(node.name);
        } else {
          r.expanded.insert(node.name);
          r.collapsed.erase(node.name);
        }
      } else {
        // go to this layer in the phase shown (forward when none applies)
        const Phase ph = phase == Phase::Backward ? phase : Phase::Forward;
        const int stop = ph == Phase::Backward ? node.backward_stop : node.forward_stop;
        if (stop >= 0) {
          r.stop = stop;
          r.synced_event = UINT64_MAX;
          s.selection.event = node.event;
          s.selection.phase = ph;
          r.synced_event = node.event;
        }
      }
    }
    ImGui::PopID();
    double v = -1;
    for (int j = i; j <= run_end; j = d.nodes[j].end + 1) v = std::max(v, value[j]);
    bool on = false;
    for (int j = i; j <= run_end; j = d.nodes[j].end + 1) on = on || lit(j);
    ImU32 fill = IM_COL32(44, 46, 52, 255);
    if (on && v >= 0) fill = widgets::colormap_sample(widgets::Colormap::Sequential, std::clamp(sc.t(v), 0.0, 1.0));
    else if (on) fill = IM_COL32(70, 72, 80, 255);
    if (prev_bottom >= 0)
      dl->AddLine(ImVec2(prev_mid_x, prev_bottom), ImVec2(prev_mid_x, p0.y), IM_COL32(110, 110, 120, 255), 1.5f);
    dl->AddRectFilled(p0, p1, fill, 3.0f);
    if (container) dl->AddRect(p0, p1, IM_COL32(140, 140, 150, 255), 3.0f);
    if (i == current || (holds_current && !open)) {
      dl->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p1.x + 2, p1.y + 2), IM_COL32(255, 255, 255, 255), 3.0f, 0, 2.5f);
      if (r.scroll_diagram) {
        ImGui::SetScrollHereY(0.4f);
        r.scroll_diagram = false;
      }
    }
    // Text: readable on light and dark fills.
    const widgets::Rgb8 rgb = widgets::colormap_rgb(widgets::Colormap::Sequential, on && v >= 0 ? sc.t(v) : 0.0);
    const bool light = on && v >= 0 && widgets::perceived_lightness(rgb) > 60;
    const ImU32 ink = light ? IM_COL32(10, 10, 14, 255) : IM_COL32(235, 235, 240, 255);
    float tx = p0.x + em * 0.4f;
    if (container) {
      dl->AddText(ImVec2(tx, p0.y + (box_h - em) * 0.5f), ink, open ? "v" : ">");
      tx += em * 1.0f;
    }
    char label[256];
    if (folded > 1)
      std::snprintf(label, sizeof label, "%s .. %s  %s x%d", node.name.c_str(), d.nodes[run_end].name.c_str(),
                    node.cls.c_str(), folded);
    else
      std::snprintf(label, sizeof label, "%s  %s", node.name.c_str(), node.cls.c_str());
    dl->PushClipRect(p0, ImVec2(p1.x - em * 3.6f, p1.y), true);
    dl->AddText(ImVec2(tx, p0.y + (box_h - em) * 0.5f), ink, label);
    dl->PopClipRect();
    if (v >= 0 && on) {
      const std::string num = widgets::format_number(v, 3);
      dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(num.c_str()).x - em * 0.4f, p0.y + (box_h - em) * 0.5f), ink,
                  num.c_str());
    }
    if (hovered)
      ImGui::SetTooltip("%s (%s)%s\n%s: %s\n%s", node.name.c_str(), node.cls.c_str(),
                        folded > 1 ? "  and the same blocks after it" : "", sc.what,
                        v >= 0 ? widgets::format_exact(v).c_str() : "not recorded",
                        folded > 1 ? "click: unfold" : container ? "click the arrow: open / close; the box: go there"
                                                                 : "click: go there");
    prev_mid_x = p0.x + em * 0.6f;
    prev_bottom = p1.y;
    ImGui::SetCursorScreenPos(ImVec2(ImGui::GetCursorScreenPos().x, p1.y + gap));
    // Next box: inside when open, else after the whole folded run.
    i = open ? i + 1 : d.nodes[run_end].end + 1;
  }
  ImGui::Dummy(ImVec2(1, gap));
  ImGui::EndChild();
}

}  // namespace tvis::viewer
