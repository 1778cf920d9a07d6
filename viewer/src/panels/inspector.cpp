// Inspector: the selected call. What it is, where it was called from and
// defined (click: annotated source), its timing and gradient norm, and each
// of its tensors; the chosen tensor is drawn below by tensor_view.cpp. A
// shared panel: it reads the model and the Selection only (inspector.h).
#include <imgui.h>

#include <cinttypes>
#include <cmath>
#include <string>

#include "../theme.h"
#include "inspector.h"
#include "panel_labels.h"
#include "tvis/viewer_model/call_tensor_list.h"
#include "tvis/viewer_model/user_time.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

namespace {

const char* role_label(TensorRole r) {
  switch (r) {
    case TensorRole::Input: return "input";
    case TensorRole::Output: return "output";
    case TensorRole::GradOutput: return "grad output";
    case TensorRole::GradInput: return "grad input";
    case TensorRole::Weight: return "weight";
    case TensorRole::Grad: return "grad";
    case TensorRole::Update: return "update";
    case TensorRole::Batch: return "batch";
    case TensorRole::Target: return "target";
    case TensorRole::Logits: return "logits";
    case TensorRole::TransformInput: return "transform in";
    case TensorRole::TransformOutput: return "transform out";
    case TensorRole::Attention: return "attention";
    case TensorRole::GradCam: return "grad-cam";
    case TensorRole::Embedding: return "embedding";
    case TensorRole::EmbeddingTable: return "embedding table";
    case TensorRole::LocalGrad: return "local grad (before all-reduce)";
    default: return "other";
  }
}

void key(const char* label) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextDisabled("%s", label);
  ImGui::TableSetColumnIndex(1);
}

void value(const std::string& v) {
  ImGui::TextUnformatted(v.c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("click to copy");
  if (ImGui::IsItemClicked()) ImGui::SetClipboardText(v.c_str());
}

// A file:line that opens the Source panel when clicked.
void site_link(PanelContext& c, uint32_t file, uint32_t line) {
  const std::string label = call_site(c.model, file, line);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::kAccent));
  ImGui::TextUnformatted(label.c_str());
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered()) {
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    ImGui::GetWindowDrawList()->AddLine(ImVec2(a.x, b.y), b, colors::kAccent);
    const std::string& full = c.model.source_files().name(file);
    ImGui::SetTooltip("%s:%u  (click: show source)", full.c_str(), line);
  }
  if (ImGui::IsItemClicked()) if (c.show_source) c.show_source(file, line);
}

void draw_tensor_list(PanelContext& c, const std::vector<TensorRef>& tensors) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollY;
  const float em = ImGui::GetFontSize();
  const float h = std::min(em * 9.5f, (ImGui::GetTextLineHeight() + 6) * static_cast<float>(tensors.size() + 1) + 4);
  if (!ImGui::BeginTable("tensors", 6, flags, ImVec2(0, h))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Tensor", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableSetupColumn("Shape", ImGuiTableColumnFlags_WidthStretch, 1.4f);
  ImGui::TableSetupColumn("dtype", ImGuiTableColumnFlags_WidthFixed, em * 4.2f);
  ImGui::TableSetupColumn("mean", ImGuiTableColumnFlags_WidthFixed, em * 4.0f);
  ImGui::TableSetupColumn("std", ImGuiTableColumnFlags_WidthFixed, em * 4.0f);
  ImGui::TableSetupColumn("max |x|", ImGuiTableColumnFlags_WidthFixed, em * 4.0f);
  ImGui::TableHeadersRow();
  for (const TensorRef& t : tensors) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushID(static_cast<int>(t.id() & 0x7fffffff));
    char label[160];
    const std::string name(t.name());
    std::snprintf(label, sizeof label, "%s%s%s", role_label(t.role()), name.empty() ? "" : "  ", name.c_str());
    const bool selected = c.selection.tensor && *c.selection.tensor == t.id();
    if (ImGui::Selectable(label, selected, ImGuiSelectableFlags_SpanAllColumns)) c.selection.tensor = t.id();
    ImGui::PopID();
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(t.shape_label().c_str());
    ImGui::TableSetColumnIndex(2);
    ImGui::TextDisabled("%s", t.dtype_label());
    const std::optional<TensorStats> st = t.stats();
    ImGui::TableSetColumnIndex(3);
    if (st) ImGui::TextUnformatted(widgets::format_number(st->mean).c_str());
    ImGui::TableSetColumnIndex(4);
    if (st) ImGui::TextUnformatted(widgets::format_number(st->stddev).c_str());
    ImGui::TableSetColumnIndex(5);
    if (st) ImGui::TextUnformatted(widgets::format_number(std::max(std::fabs(st->min), std::fabs(st->max))).c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void draw_inspector(PanelContext& c, InspectorState& state) {
  if (!c.selection.event) {
    ImGui::TextDisabled("Inspector");
    ImGui::Separator();
    ImGui::TextDisabled("Select a call in the tree, the timeline or the layers table,");
    ImGui::TextDisabled("or step with the left / right arrow keys.");
    return;
  }
  const CallRef e = c.model.call(*c.selection.event);
  if (!e) {
    if (c.model.event_state(*c.selection.event) == EventState::NotRecorded)
      ImGui::TextDisabled("Call #%" PRIu64 ": %s", *c.selection.event, c.model.not_recorded_label());
    else if (const format::Status* f = c.model.event_failure(*c.selection.event))
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kError), "Call #%" PRIu64 " is unreadable: %s",
                         *c.selection.event, f->message.c_str());
    else
      ImGui::TextDisabled("Call #%" PRIu64 ": loading ...", *c.selection.event);
    return;
  }
  // Title: name, class, kind chip.
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
  const std::string name(e.name()), class_name(e.class_name());
  ImGui::TextUnformatted(name.empty() ? "(unnamed)" : name.c_str());
  ImGui::PopStyleColor();
  if (!class_name.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", class_name.c_str());
  }
  ImGui::SameLine();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(phase_color(e.phase())), "%s  %s", event_kind_label(e.kind()),
                     phase_label(e.phase()));

  const float em = ImGui::GetFontSize();
  if (ImGui::BeginTable("fields", 4, ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("k1", ImGuiTableColumnFlags_WidthFixed, em * 6);
    ImGui::TableSetupColumn("v1", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("k2", ImGuiTableColumnFlags_WidthFixed, em * 6);
    ImGui::TableSetupColumn("v2", ImGuiTableColumnFlags_WidthStretch);
    key("call");
    value("#" + std::to_string(e.id()));
    ImGui::TableSetColumnIndex(2);
    ImGui::TextDisabled("step");
    ImGui::TableSetColumnIndex(3);
    value(e.step() >= 0 ? std::to_string(e.step()) : "before step 0");
    key("called from");
    if (e.call_line() > 0) site_link(c, e.call_file(), e.call_line());
    else ImGui::TextDisabled("-");
    ImGui::TableSetColumnIndex(2);
    ImGui::TextDisabled("defined at");
    ImGui::TableSetColumnIndex(3);
    if (e.def_line() > 0) site_link(c, e.def_file(), e.def_line());
    else ImGui::TextDisabled("-");
    key("duration");
    if (e.t_end_ns() >= e.t_begin_ns() && e.t_end_ns() > 0) {
      // the user's time; tvis's own work inside the call apart (user_time.h)
      const UserTime ut = event_time(e);
      value(user_time_label(ut));
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(ut.known ? "Your code's time in this call. tvis's own work inside it (hooks, captures,\n"
                                     "Grad-CAM passes, copies, writing) is shown apart; wall time %s."
                                   : "Wall time (%s). This run did not record tvis's own time: it includes tvis's\n"
                                     "work (hooks, captures, Grad-CAM passes).",
                          duration_label(ut.wall).c_str());
    }
    else ImGui::TextDisabled("-");
    ImGui::TableSetColumnIndex(2);
    ImGui::TextDisabled("parent");
    ImGui::TableSetColumnIndex(3);
    if (e.parent() >= 0) {
      const CallRef p = c.model.call(static_cast<uint64_t>(e.parent()));
      const std::string parent_name = p ? std::string(p.name()) : std::string();
      char buf[160];
      std::snprintf(buf, sizeof buf, "#%" PRId64 " %s", e.parent(), parent_name.c_str());
      if (ImGui::SmallButton(buf)) c.selection.select_event(static_cast<uint64_t>(e.parent()));
    } else {
      ImGui::TextDisabled("top level");
    }
    if (e.grad_norm() >= 0) {
      key("||dL/dout||");
      value(widgets::format_exact(e.grad_norm()));
    }
    if (e.sample() >= 0) {
      key("sample");
      value(std::to_string(e.sample()));
    }
    for (const CallDetail& kv : e.detail()) {
      key(kv.key.data() ? std::string(kv.key).c_str() : "?");
      value(std::string(kv.value));
    }
    ImGui::EndTable();
  }

  // A module call: its tensors, or the layer panel.
  state.layer_drawn = false;
  if (e.kind() == EventKind::ModuleCall) {
    ImGui::Spacing();
    int mode = state.show_layer ? 1 : 0;
    ImGui::RadioButton("Tensors", &mode, 0);
    ImGui::SameLine();
    ImGui::RadioButton("Layer view (On image, Neurons, Stats)", &mode, 1);
    state.show_layer = mode == 1;
    if (state.show_layer) {
      LayerTarget t;
      t.event = e.id();
      t.step = e.step();
      const auto& followed = c.model.samples().followed();
      t.sample = followed.empty() ? -1 : followed[static_cast<size_t>(c.selection.sample_cursor) % followed.size()];
      ImGui::BeginChild("inspector_layer", ImVec2(0, 0), false);
      draw_layer_view(c, state.layer, t);
      ImGui::EndChild();
      state.layer_drawn = state.layer.shown;
      return;
    }
  }
  // Tensors of the call.
  bool complete = true;
  std::vector<TensorRef> tensors = call_tensor_list(c.model, e, &complete);
  ImGui::Spacing();
  ImGui::Text("Tensors");
  ImGui::SameLine();
  if (!complete) ImGui::TextDisabled("(loading ...)");
  else ImGui::TextDisabled("%zu", tensors.size());
  if (tensors.empty()) {
    if (complete) {
      ImGui::TextDisabled("No tensors recorded for this call.");
      c.selection.tensor.reset();
    }
    return;
  }
  // Keep the chosen tensor if it belongs to this call, else show the first output.
  const TensorRef* shown = nullptr;
  for (const auto& t : tensors)
    if (c.selection.tensor && t.id() == *c.selection.tensor) shown = &t;
  if (!shown) {
    shown = &tensors.front();
    for (const auto& t : tensors)
      if (t.role() == TensorRole::Output) {
        shown = &t;
        break;
      }
    c.selection.tensor = shown->id();
  }
  draw_tensor_list(c, tensors);
  ImGui::Separator();
  draw_tensor_view(c, state.tensor_view, *shown);
}

}  // namespace tvis::viewer
