// Layers: one row per module call of the navigator's step, with its class,
// output shape, parameter count, output activation mean / std and
// ||dL/d(output)||. Sortable by any column; click a row to select the call.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "../theme.h"
#include "explore_state.h"
#include "tvis/viewer_model/call_tensors.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

namespace {

// A step can hold 10^5 calls: rows are built a slice per frame, after the
// step's tensor records are indexed, from the Events chunks as they arrive.
constexpr size_t kRowsPerFrame = 2000;

LayerRow make_row(AppState& s, const LayersState& l, const CallRef& call, bool* complete) {
  LayerRow r;
  r.event = call.id();
  r.path = std::string(call.name());
  r.cls = std::string(call.class_name());
  if (call.grad_norm() >= 0) r.grad = call.grad_norm();
  auto p = l.params.find(r.path);
  r.params = p == l.params.end() ? 0 : p->second;
  const TensorRef t = call_tensor(s.model, call, false, complete);  // the one rule (call_tensors.h)
  if (t) {
    r.out_shape = t.shape_label();
    if (const std::optional<TensorStats> st = t.stats()) {
      r.mean = st->mean;
      r.stddev = st->stddev;
    }
  }
  return r;
}

// Builds up to kRowsPerFrame more rows; true once every module call of the
// step has its row (then sorted by call order).
bool build_rows(AppState& s, LayersState& l) {
  if (!s.model.tensors().ready(s.model, l.step)) return false;
  if (!l.params_known) {
    l.params.clear();
    if (!s.model.parameters().module_counts(l.step, &l.params)) return false;
    l.params_known = true;
  }
  const auto& spans = s.model.event_spans();
  size_t built = 0;
  while (l.next_span < spans.size()) {
    const EventSpan& span = spans[l.next_span];
    const bool holds_step = span.step_first < 0 || (l.step >= span.step_first && l.step <= span.step_last);
    if (holds_step) {
      const RunModel::SpanWalk walk = s.model.walk_span_calls(span, &l.next_event, [&](const CallRef& call) {
        if (built >= kRowsPerFrame) return false;
        if (call.step() != l.step || call.kind() != EventKind::ModuleCall) return true;
        bool complete = true;
        l.rows.push_back(make_row(s, l, call, &complete));
        if (!complete) l.unresolved = true;
        ++built;
        return true;
      });
      if (walk.state == ChunkRead::Loading) return false;  // loading, or past this frame's decode budget
      if (!walk.finished) return false;                    // this frame's slice is spent
    }
    ++l.next_span;
    l.next_event = 0;
  }
  std::sort(l.rows.begin(), l.rows.end(), [](const LayerRow& a, const LayerRow& b) { return a.event < b.event; });
  return true;
}

// Starts building the rows of `step` afresh.
void restart(LayersState& l, int step) {
  if (l.step != step) l.rebuilt = false;
  l.step = step;
  l.rows.clear();
  l.params_known = false;
  l.next_span = 0;
  l.next_event = 0;
  l.unresolved = false;
  l.complete = false;
}

// NaN sorts last in either direction.
bool less_num(double a, double b, bool desc) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return desc ? a > b : a < b;
}

void sort_rows(LayersState& l) {
  if (l.sort_column < 0) return;
  const bool d = l.sort_descending;
  auto key = [&](const LayerRow& a, const LayerRow& b) -> bool {
    switch (l.sort_column) {
      case 0: return d ? a.path > b.path : a.path < b.path;
      case 1: return d ? a.cls > b.cls : a.cls < b.cls;
      case 2: return d ? a.out_shape > b.out_shape : a.out_shape < b.out_shape;
      case 3: return d ? a.params > b.params : a.params < b.params;
      case 4: return less_num(a.mean, b.mean, d);
      case 5: return less_num(a.stddev, b.stddev, d);
      case 6: return less_num(a.grad, b.grad, d);
      default: return d ? a.event > b.event : a.event < b.event;
    }
  };
  std::stable_sort(l.rows.begin(), l.rows.end(), key);
}

std::string num(double v) { return std::isnan(v) ? std::string("-") : widgets::format_number(v, 4); }

}  // namespace

void draw_layers_table(AppState& s, ExploreState& x) {
  LayersState& l = x.layers;
  if (l.step != s.selection.step) restart(l, s.selection.step);
  if (!l.complete && build_rows(s, l)) {
    if (l.unresolved && !l.rebuilt) {
      restart(l, l.step);  // a record's chunk was evicted meanwhile: build once more
      l.rebuilt = true;
    } else {
      l.complete = true;
      sort_rows(l);
    }
  }
  ImGui::TextDisabled("Step %d: %zu module calls%s.  Click a header to sort, a row to select the call.", l.step,
                      l.rows.size(), l.complete ? "" : " (loading ...)");
  const float em = ImGui::GetFontSize();
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable | ImGuiTableFlags_SortTristate |
                                ImGuiTableFlags_SizingFixedFit;  // tristate: call order until a header is clicked
  if (!ImGui::BeginTable("layers", 7, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Module", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableSetupColumn("Class", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("Output shape", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("Params", ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_PreferSortDescending, em * 4.5f);
  ImGui::TableSetupColumn("Act mean", ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_PreferSortDescending, em * 5);
  ImGui::TableSetupColumn("Act std", ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_PreferSortDescending, em * 5);
  ImGui::TableSetupColumn("||grad||", ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_PreferSortDescending, em * 5);
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs())
    if (specs->SpecsDirty) {
      if (specs->SpecsCount > 0) {
        l.sort_column = specs->Specs[0].ColumnIndex;
        l.sort_descending = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
      } else {
        l.sort_column = 7;  // back to call order
        l.sort_descending = false;
      }
      sort_rows(l);
      specs->SpecsDirty = false;
    }
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(l.rows.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const LayerRow& r = l.rows[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::PushID(i);
      if (ImGui::Selectable(r.path.c_str(), s.selection.event && *s.selection.event == r.event,
                            ImGuiSelectableFlags_SpanAllColumns))
        s.selection.select_event(r.event);
      ImGui::PopID();
      ImGui::TableSetColumnIndex(1);
      ImGui::TextDisabled("%s", r.cls.c_str());
      ImGui::TableSetColumnIndex(2);
      ImGui::TextUnformatted(r.out_shape.empty() ? "-" : r.out_shape.c_str());
      ImGui::TableSetColumnIndex(3);
      if (r.params > 0) ImGui::TextUnformatted(widgets::format_number(static_cast<double>(r.params)).c_str());
      else ImGui::TextDisabled("-");
      ImGui::TableSetColumnIndex(4);
      ImGui::TextUnformatted(num(r.mean).c_str());
      ImGui::TableSetColumnIndex(5);
      ImGui::TextUnformatted(num(r.stddev).c_str());
      ImGui::TableSetColumnIndex(6);
      ImGui::TextUnformatted(num(r.grad).c_str());
    }
  clipper.End();
  ImGui::EndTable();
}

}  // namespace tvis::viewer
