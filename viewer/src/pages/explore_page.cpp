// Explore: every recorded event in call order (virtualized with
// ImGuiListClipper; rows whose chunk is still loading draw a placeholder)
// and an inspector for the selected event.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <string>

#include "../app_state.h"
#include "../theme.h"

namespace tvis::viewer {

namespace {

constexpr int kMaxDepthWalk = 256;

std::string site(AppState& s, uint32_t file, uint32_t line) {
  if (line == 0) return {};
  const std::string& name = file_name(s, file);
  return (name.empty() ? "file " + std::to_string(file) : name) + ":" + std::to_string(line);
}

void draw_row(AppState& s, uint64_t id, const schema::Event* e, float indent_w) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  char label[32];
  std::snprintf(label, sizeof label, "%" PRIu64 "##row", id);
  const bool selected = s.selected_event && *s.selected_event == id;
  if (ImGui::Selectable(label, selected, ImGuiSelectableFlags_SpanAllColumns)) {
    s.selected_event = id;
    s.jump_pending = false;
  }
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  s.row_rects[id] = Rect{a.x, a.y, b.x, b.y};
  if (e && ImGui::BeginPopupContextItem()) {
    if (ImGui::MenuItem("Copy name") && e->name()) ImGui::SetClipboardText(e->name()->c_str());
    if (ImGui::MenuItem("Copy call site"))
      ImGui::SetClipboardText(site(s, e->call_file(), e->call_line()).c_str());
    ImGui::EndPopup();
  }
  if (!e) {
    ImGui::TableSetColumnIndex(4);
    if (const format::Status* failure = s.model.event_failure(id))
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::kError), "unreadable: %s", failure->message.c_str());
    else
      ImGui::TextDisabled("loading ...");
    return;
  }
  ImGui::TableSetColumnIndex(1);
  if (e->step() >= 0) ImGui::Text("%d", e->step());
  ImGui::TableSetColumnIndex(2);
  ImGui::TextUnformatted(phase_label(e->phase()));
  ImGui::TableSetColumnIndex(3);
  ImGui::TextDisabled("%s", event_kind_label(e->kind()));
  ImGui::TableSetColumnIndex(4);
  const int depth = event_depth(s, id);
  if (depth > 0) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + indent_w * static_cast<float>(std::min(depth, 32)));
  ImGui::TextUnformatted(e->name() ? e->name()->c_str() : "");
  ImGui::TableSetColumnIndex(5);
  if (e->class_name()) ImGui::TextDisabled("%s", e->class_name()->c_str());
  ImGui::TableSetColumnIndex(6);
  const std::string where = site(s, e->call_file(), e->call_line());
  ImGui::TextDisabled("%s", where.c_str());
}

void draw_event_table(AppState& s) {
  const uint64_t n = s.model.event_count();
  ImGui::Text("Events");
  ImGui::SameLine();
  ImGui::TextDisabled("%" PRIu64 " recorded, in call order  (left/right: step, right-click: copy)", n);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("events", 7, flags)) return;
  const float em = ImGui::GetFontSize();
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, em * 4);
  ImGui::TableSetupColumn("Step", ImGuiTableColumnFlags_WidthFixed, em * 2.5f);
  ImGui::TableSetupColumn("Phase", ImGuiTableColumnFlags_WidthFixed, em * 4.5f);
  ImGui::TableSetupColumn("Kind", ImGuiTableColumnFlags_WidthFixed, em * 6);
  ImGui::TableSetupColumn("Name", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableSetupColumn("Class", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("Called from", ImGuiTableColumnFlags_WidthStretch, 1.5f);
  ImGui::TableHeadersRow();

  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
  if (s.scroll_to && *s.scroll_to < n) {
    const float y = static_cast<float>(*s.scroll_to) * row_h;
    const float view_h = ImGui::GetWindowHeight() - row_h * 2;  // minus the frozen header
    const float top = ImGui::GetScrollY();
    if (y < top || y + row_h > top + view_h) ImGui::SetScrollY(std::max(0.0f, y - view_h * 0.5f));
    s.scroll_to.reset();
  }
  ImGuiListClipper clipper;
  // ImGuiListClipper counts in int: runs beyond 2^31 events show the first 2^31.
  clipper.Begin(static_cast<int>(std::min<uint64_t>(n, INT32_MAX)), row_h);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint64_t id = static_cast<uint64_t>(i);
      draw_row(s, id, s.model.event(id), em);
    }
  }
  clipper.End();
  ImGui::EndTable();
}

void field(const char* label, const std::string& value) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextDisabled("%s", label);
  ImGui::TableSetColumnIndex(1);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(value.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::IsItemClicked()) ImGui::SetClipboardText(value.c_str());
}

std::string ids(const flatbuffers::Vector<uint64_t>* v) {
  if (!v || v->size() == 0) return "-";
  std::string out;
  for (uint64_t id : *v) out += (out.empty() ? "#" : ", #") + std::to_string(id);
  return out;
}

void draw_inspector(AppState& s) {
  ImGui::Text("Inspector");
  ImGui::Separator();
  if (!s.selected_event) {
    ImGui::TextDisabled("Select an event (click a row, or press left/right).");
    return;
  }
  const schema::Event* e = s.model.event(*s.selected_event);
  if (!e) {
    ImGui::TextDisabled("Event %" PRIu64 ": loading ...", *s.selected_event);
    return;
  }
  ImGui::TextUnformatted(e->name() ? e->name()->c_str() : "(unnamed)");
  if (!ImGui::BeginTable("fields", 2, ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn("k", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 7);
  ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch);
  field("event", "#" + std::to_string(e->id()));
  field("kind", event_kind_label(e->kind()));
  if (e->class_name() && e->class_name()->size()) field("class", e->class_name()->str());
  field("step", e->step() >= 0 ? std::to_string(e->step()) : "before the first step");
  if (e->phase() != schema::Phase::None) field("phase", phase_label(e->phase()));
  field("parent", e->parent() >= 0 ? "#" + std::to_string(e->parent()) : "top level");
  std::string call = site(s, e->call_file(), e->call_line());
  if (!call.empty()) field("called from", call);
  std::string def = site(s, e->def_file(), e->def_line());
  if (!def.empty()) field("defined at", def);
  if (e->t_end_ns() >= e->t_begin_ns() && e->t_end_ns() > 0) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(e->t_end_ns() - e->t_begin_ns()) / 1e6);
    field("duration", buf);
  }
  field("inputs", ids(e->inputs()));
  field("outputs", ids(e->outputs()));
  if (e->grad_outputs() && e->grad_outputs()->size()) field("grad outputs", ids(e->grad_outputs()));
  if (e->grad_norm() >= 0) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6g", e->grad_norm());
    field("||dL/dout||", buf);
  }
  if (e->sample() >= 0) field("sample", std::to_string(e->sample()));
  if (e->detail())
    for (const auto* kv : *e->detail())
      field(kv->key() ? kv->key()->c_str() : "?", kv->value() ? kv->value()->str() : "");
  ImGui::EndTable();
  ImGui::Spacing();
  ImGui::TextDisabled("click a value to copy it");
}

}  // namespace

int event_depth(AppState& s, uint64_t id) {
  auto hit = s.depth_cache.find(id);
  if (hit != s.depth_cache.end()) return hit->second;
  // Walk up through loaded parents; stop (without caching) at an unloaded one.
  std::vector<uint64_t> chain;
  int base = 0;
  uint64_t cur = id;
  for (int guard = 0; guard < kMaxDepthWalk; ++guard) {
    auto known = s.depth_cache.find(cur);
    if (known != s.depth_cache.end()) {
      base = known->second;
      break;
    }
    const schema::Event* e = s.model.event(cur);
    if (!e) return 0;
    chain.push_back(cur);
    if (e->parent() < 0 || static_cast<uint64_t>(e->parent()) >= cur) {  // top level, or a malformed cycle
      base = -1;
      break;
    }
    cur = static_cast<uint64_t>(e->parent());
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) s.depth_cache[*it] = ++base;
  return s.depth_cache.count(id) ? s.depth_cache[id] : 0;
}

const std::string& file_name(AppState& s, uint32_t id) {
  static const std::string kEmpty;
  if (!s.files_indexed) {
    bool all = true;
    for (uint32_t ordinal : s.model.chunks_of_kind(format::ChunkKind::SourceFiles)) {
      if (s.model.cache().failure(ordinal)) continue;
      auto chunk = s.model.cache().get_pinned(ordinal);
      if (!chunk) {
        all = false;
        continue;
      }
      const auto* files = chunk->root() ? chunk->root()->body_as_SourceFiles() : nullptr;
      if (!files || !files->files()) continue;
      for (const auto* f : *files->files()) {
        const auto* shown = f->display_path() && f->display_path()->size() ? f->display_path() : f->path();
        s.file_names[f->id()] = shown ? shown->str() : std::string();
      }
    }
    s.files_indexed = all;
  }
  auto it = s.file_names.find(id);
  return it == s.file_names.end() ? kEmpty : it->second;
}

void draw_explore_page(AppState& s) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float status_h = ImGui::GetFrameHeight();
  const float height = avail.y - status_h;
  const float inspector_w = std::max(ImGui::GetFontSize() * 20, avail.x * 0.3f);
  ImGui::BeginChild("event_list", ImVec2(avail.x - inspector_w - ImGui::GetStyle().ItemSpacing.x, height), false);
  draw_event_table(s);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("inspector", ImVec2(0, height), true);
  draw_inspector(s);
  ImGui::EndChild();
}

}  // namespace tvis::viewer
