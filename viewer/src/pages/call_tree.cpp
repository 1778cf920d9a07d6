// Call tree: every recorded call in call order, indented by depth,
// expandable, searchable, virtualized with ImGuiListClipper. Rows whose
// Events chunk is still loading draw a placeholder; nothing waits. An id no
// chunk holds (a call still open when a killed run ended: never written) is a
// "call not recorded" row at depth 0, its written children indented below it.
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>

#include "../theme.h"
#include "explore_state.h"

namespace tvis::viewer {

namespace {

constexpr uint64_t kScanPerFrame = 50000;  // ids tested per frame when finding a subtree's end
constexpr size_t kSearchSpansPerFrame = 16;

// ---------------------------------------------------------------- rows ---

void rebuild_hidden(CallTreeState& t) {
  t.hidden.clear();
  t.hidden_total = 0;
  for (const auto& [id, end] : t.collapsed) {
    if (!end || *end <= id) continue;
    if (!t.hidden.empty() && id <= t.hidden.back().second) continue;  // inside a hidden subtree
    t.hidden.emplace_back(id + 1, *end);
    t.hidden_total += *end - id;
  }
  t.hidden_dirty = false;
}

uint64_t row_to_id(const CallTreeState& t, uint64_t row) {
  uint64_t id = row;
  for (const auto& [a, b] : t.hidden) {
    if (id < a) break;
    id += b - a + 1;
  }
  return id;
}

// The row of `id`, or nullopt when a collapsed ancestor hides it.
std::optional<uint64_t> id_to_row(const CallTreeState& t, uint64_t id) {
  uint64_t skipped = 0;
  for (const auto& [a, b] : t.hidden) {
    if (id < a) break;
    if (id <= b) return std::nullopt;
    skipped += b - a + 1;
  }
  return id - skipped;
}

// The hidden range holding id, or nullptr.
const std::pair<uint64_t, uint64_t>* hidden_range(const CallTreeState& t, uint64_t id) {
  for (const auto& r : t.hidden) {
    if (id < r.first) break;
    if (id <= r.second) return &r;
  }
  return nullptr;
}

// Finds the end of pending collapses: the last id before the first later
// event whose parent precedes the collapsed one.
void resolve_pending(AppState& s, CallTreeState& t) {
  const uint64_t n = s.model.event_count();
  for (auto& [id, end] : t.collapsed) {
    if (end) continue;
    uint64_t& cur = t.scan_cursor.try_emplace(id, id + 1).first->second;
    for (uint64_t budget = 0; budget < kScanPerFrame; ++budget) {
      if (cur >= n) {
        end = n - 1;
        break;
      }
      const std::optional<int64_t> parent = s.model.parent_of(cur);
      if (!parent) {
        const EventState state = s.model.event_state(cur);
        if (state == EventState::Loading) break;
        // An unreadable chunk stops the subtree here. A call never written was
        // still open when the run ended: inside an unwritten call it is nested
        // in it, after a written (ended) one it began after that one ended.
        if (state == EventState::NotRecorded && s.model.event_state(id) == EventState::NotRecorded) {
          ++cur;
          continue;
        }
        end = cur - 1;
        break;
      }
      if (*parent < static_cast<int64_t>(id)) {
        end = cur - 1;
        break;
      }
      ++cur;
    }
    if (end) {
      t.scan_cursor.erase(id);
      t.hidden_dirty = true;
    }
  }
  if (t.hidden_dirty) rebuild_hidden(t);
}

void toggle(CallTreeState& t, uint64_t id) {
  auto it = t.collapsed.find(id);
  if (it != t.collapsed.end()) {
    t.collapsed.erase(it);
    t.scan_cursor.erase(id);
  } else {
    t.collapsed.emplace(id, std::nullopt);
  }
  t.hidden_dirty = true;
}

// Expands every collapsed ancestor range that hides `id`.
void reveal(CallTreeState& t, uint64_t id) {
  for (auto it = t.collapsed.begin(); it != t.collapsed.end();) {
    if (it->first < id && it->second && id <= *it->second) {
      it = t.collapsed.erase(it);
      t.hidden_dirty = true;
    } else {
      ++it;
    }
  }
  if (t.hidden_dirty) rebuild_hidden(t);
}

bool has_children(AppState& s, uint64_t id) {
  if (id + 1 >= s.model.event_count()) return false;
  const std::optional<int64_t> parent = s.model.parent_of(id + 1);
  return parent && *parent == static_cast<int64_t>(id);
}

// -------------------------------------------------------------- search ---

bool contains_ci(std::string_view hay, const std::string& needle) {
  if (needle.empty()) return false;
  const char* h = hay.data();
  const size_t hn = hay.size(), nn = needle.size();
  for (size_t i = 0; i + nn <= hn; ++i) {
    size_t k = 0;
    while (k < nn && std::tolower(static_cast<unsigned char>(h[i + k])) == needle[k]) ++k;
    if (k == nn) return true;
  }
  return false;
}

void run_search(AppState& s, CallTreeState& t) {
  std::string q = t.query;
  std::transform(q.begin(), q.end(), q.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (q != t.active_query) {
    t.active_query = q;
    t.matches.clear();
    t.scan_span = 0;
    t.scan_done = q.empty();
  }
  if (t.scan_done) return;
  const auto& spans = s.model.event_spans();
  bool added = false;
  for (size_t k = 0; k < kSearchSpansPerFrame && t.scan_span < spans.size(); ++k) {
    uint32_t next = 0;
    const RunModel::SpanWalk walk = s.model.walk_span_calls(spans[t.scan_span], &next, [&](const CallRef& call) {
      if (contains_ci(call.name(), q) || contains_ci(call.class_name(), q)) {
        t.matches.push_back(call.id());
        added = true;
      }
      return true;
    });
    if (walk.state == ChunkRead::Loading) break;  // loading: continue next frame
    ++t.scan_span;
  }
  if (added) std::sort(t.matches.begin(), t.matches.end());
  t.scan_done = t.scan_span >= spans.size();
}

// ---------------------------------------------------------------- draw ---

ImU32 kind_color(EventKind k) {
  switch (k) {
    case EventKind::ModuleCall: return IM_COL32(130, 190, 255, 255);
    case EventKind::FunctionCall: return IM_COL32(230, 205, 120, 255);
    case EventKind::LossCall: return IM_COL32(255, 160, 90, 255);
    case EventKind::OptimizerStep: return IM_COL32(120, 215, 140, 255);
    case EventKind::BackwardCall: return IM_COL32(215, 140, 230, 255);
    case EventKind::DataFetch:
    case EventKind::DatasetGetItem:
    case EventKind::Transform: return IM_COL32(110, 210, 200, 255);
    default: return IM_COL32(150, 155, 165, 255);
  }
}

bool is_marker(EventKind k) { return k == EventKind::PhaseBegin || k == EventKind::PhaseEnd; }

// Disclosure arrow of a row with children (own hit box over the row's selectable).
void draw_disclosure(AppState& s, CallTreeState& t, uint64_t id, bool flat, float xpos, float y) {
  if (flat || !has_children(s, id)) return;
  const float em = ImGui::GetFontSize();
  const float line_h = ImGui::GetTextLineHeight();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const bool closed = t.collapsed.count(id) != 0;
  ImGui::SetCursorScreenPos(ImVec2(xpos, y));
  if (ImGui::InvisibleButton("##tog", ImVec2(em, line_h))) toggle(t, id);
  const ImU32 col = ImGui::IsItemHovered() ? IM_COL32(255, 255, 255, 255) : IM_COL32(170, 175, 185, 255);
  const float cx = xpos + em * 0.45f, cy = y + line_h * 0.5f, r = em * 0.26f;
  if (closed)
    dl->AddTriangleFilled(ImVec2(cx - r * 0.6f, cy - r), ImVec2(cx - r * 0.6f, cy + r), ImVec2(cx + r * 0.8f, cy), col);
  else
    dl->AddTriangleFilled(ImVec2(cx - r, cy - r * 0.6f), ImVec2(cx + r, cy - r * 0.6f), ImVec2(cx, cy + r * 0.8f), col);
}

void draw_row(AppState& s, ExploreState& x, uint64_t id, bool flat) {
  CallTreeState& t = x.tree;
  const CallRef e = s.model.call(id);
  const EventState state = e ? EventState::Present : s.model.event_state(id);
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  const ImVec2 cell = ImGui::GetCursorScreenPos();
  const float em = ImGui::GetFontSize();
  const float line_h = ImGui::GetTextLineHeight();
  ImGui::PushID(static_cast<int>(id & 0x7fffffff));
  const bool selected = s.selection.event && *s.selection.event == id;
  if (ImGui::Selectable("##row", selected,
                        ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap |
                            ImGuiSelectableFlags_AllowDoubleClick,
                        ImVec2(0, line_h))) {
    s.selection.select_event(id);
    t.follow_selection = false;  // the row is already visible
    if (ImGui::IsMouseDoubleClicked(0) && !flat && has_children(s, id)) toggle(t, id);
  }
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  s.drawn.events[id] = Rect{a.x, a.y, b.x, b.y, static_cast<bool>(e) || state == EventState::NotRecorded};
  if (e && ImGui::BeginPopupContextItem("ctx")) {
    if (ImGui::MenuItem("Copy name") && !e.name().empty()) ImGui::SetClipboardText(std::string(e.name()).c_str());
    if (ImGui::MenuItem("Copy call site")) ImGui::SetClipboardText(call_site(s.model, e.call_file(), e.call_line()).c_str());
    if (ImGui::MenuItem("Show source", nullptr, false, e.call_line() > 0)) show_source(x, e.call_file(), e.call_line());
    ImGui::EndPopup();
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (state == EventState::Loading || state == EventState::Unreadable) {
    const bool failed = state == EventState::Unreadable;
    char buf[96];
    std::snprintf(buf, sizeof buf, "#%" PRIu64 "  %s", id, failed ? "unreadable chunk" : "loading ...");
    dl->AddText(ImVec2(cell.x + em * 0.5f, cell.y), failed ? colors::kError : colors::kMuted, buf);
    ImGui::PopID();
    return;
  }
  const int depth = flat ? 0 : std::min(s.model.tree().depth(id), 40);
  float xpos = cell.x + em * 0.9f * static_cast<float>(depth);
  if (!e) {  // NotRecorded: the row stands for the call its written children name as parent
    draw_disclosure(s, t, id, flat, xpos, cell.y);
    char buf[128];
    std::snprintf(buf, sizeof buf, "#%" PRIu64 "  %s", id, s.model.not_recorded_label());
    dl->AddText(ImVec2(xpos + em * 1.7f, cell.y), colors::kMuted, buf);
    ImGui::PopID();
    return;
  }
  draw_disclosure(s, t, id, flat, xpos, cell.y);
  xpos += em * 1.1f;
  // Phase chip, then the name in the kind's colour, then the class.
  dl->AddRectFilled(ImVec2(xpos, cell.y + line_h * 0.25f), ImVec2(xpos + em * 0.3f, cell.y + line_h * 0.75f),
                    phase_color(e.phase()), 1.5f);
  xpos += em * 0.6f;
  const std::string_view name = e.name().empty() ? std::string_view("(unnamed)") : e.name();
  if (is_marker(e.kind())) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %s", e.kind() == EventKind::PhaseBegin ? "begin" : "end",
                  phase_label(e.phase()));
    dl->AddText(ImVec2(xpos, cell.y), colors::kMuted, buf);
  } else {
    dl->AddText(ImVec2(xpos, cell.y), kind_color(e.kind()), name.data(), name.data() + name.size());
    if (const std::string_view cls = e.class_name(); !cls.empty()) {
      const float w = ImGui::CalcTextSize(name.data(), name.data() + name.size()).x;
      dl->AddText(ImVec2(xpos + w + em * 0.5f, cell.y), colors::kMuted, cls.data(), cls.data() + cls.size());
    }
  }
  if (t.collapsed.count(id)) {
    auto end = t.collapsed[id];
    char buf[64];
    if (end) std::snprintf(buf, sizeof buf, "+%" PRIu64, *end - id);
    else std::snprintf(buf, sizeof buf, "(finding end ...)");
    const float w = ImGui::CalcTextSize(buf).x;
    dl->AddText(ImVec2(std::max(xpos, cell.x + ImGui::GetColumnWidth() - w - em * 0.3f), cell.y), colors::kMuted, buf);
  }
  ImGui::TableSetColumnIndex(1);
  if (e.step() >= 0) ImGui::Text("%d", e.step());
  else ImGui::TextDisabled("-");
  ImGui::TableSetColumnIndex(2);
  ImGui::TextUnformatted(phase_label(e.phase()));
  ImGui::TableSetColumnIndex(3);
  // Time: the user's; tvis: tvis's own work inside the call (user_time.h)
  const UserTime ut = event_time(e);
  if (e.t_end_ns() > e.t_begin_ns()) ImGui::TextUnformatted(duration_label(ut.user).c_str());
  ImGui::TableSetColumnIndex(4);
  if (ut.known && ut.own > 0) ImGui::TextDisabled("%s", duration_label(ut.own).c_str());
  else ImGui::TextDisabled("-");
  ImGui::TableSetColumnIndex(5);
  const std::string where = call_site(s.model, e.call_file(), e.call_line());
  ImGui::TextDisabled("%s", where.c_str());
  ImGui::PopID();
}

// Moves a selection that landed inside a collapsed subtree (keys step by id)
// to the nearest visible row in the direction it moved.
void skip_hidden_selection(CallTreeState& t, AppState& s) {
  if (!s.selection.event) return;
  const uint64_t id = *s.selection.event;
  if (const auto* r = hidden_range(t, id)) {
    const bool forward = !t.last_selected || *t.last_selected < id;
    if (forward && r->second + 1 < s.model.event_count()) s.selection.event = r->second + 1;
    else s.selection.event = r->first - 1;  // the collapsed call itself
    s.selection.scroll_to = s.selection.event;
  }
}

}  // namespace

void draw_call_tree(AppState& s, ExploreState& x) {
  CallTreeState& t = x.tree;
  const uint64_t n = s.model.event_count();
  resolve_pending(s, t);
  if (t.last_selected != s.selection.event && s.selection.event && t.last_selected && t.active_query.empty()) {
    // Left / right step by one id: into a collapsed subtree means over it.
    // Other jumps (navigator, timeline, layers) reveal their target instead.
    const uint64_t now = *s.selection.event, before = *t.last_selected;
    if (now == before + 1 || now + 1 == before) skip_hidden_selection(t, s);
  }

  // Toolbar: search, expand all, counts.
  const float em = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(std::max(em * 10, ImGui::GetContentRegionAvail().x - em * 16));
  ImGui::InputTextWithHint("##search", "Search calls by name or class", t.query, sizeof t.query);
  run_search(s, t);
  ImGui::SameLine();
  if (ImGui::Button("Expand all")) {
    t.collapsed.clear();
    t.scan_cursor.clear();
    rebuild_hidden(t);
  }
  ImGui::SameLine();
  const bool searching = !t.active_query.empty();
  if (searching)
    ImGui::TextDisabled("%zu match%s%s", t.matches.size(), t.matches.size() == 1 ? "" : "es",
                        t.scan_done ? "" : " ...");
  else
    ImGui::TextDisabled("%" PRIu64 " calls", n);

  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_BordersOuterH;
  if (!ImGui::BeginTable("calltree", 6, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Call", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoHide, 4.0f);
  ImGui::TableSetupColumn("Step", ImGuiTableColumnFlags_WidthFixed, em * 2.4f);
  ImGui::TableSetupColumn("Phase", ImGuiTableColumnFlags_WidthFixed, em * 4.6f);
  ImGui::TableSetupColumn("Time", ImGuiTableColumnFlags_WidthFixed, em * 4.6f);
  ImGui::TableSetupColumn("tvis own", ImGuiTableColumnFlags_WidthFixed, em * 4.4f);
  ImGui::TableSetupColumn("Called from", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableHeadersRow();

  const uint64_t rows = searching ? t.matches.size() : n - std::min(n, t.hidden_total);
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
  if (s.selection.scroll_to && *s.selection.scroll_to < n) {
    if (!searching) reveal(t, *s.selection.scroll_to);
    std::optional<uint64_t> row;
    if (searching) {
      auto it = std::lower_bound(t.matches.begin(), t.matches.end(), *s.selection.scroll_to);
      if (it != t.matches.end() && *it == *s.selection.scroll_to) row = static_cast<uint64_t>(it - t.matches.begin());
    } else {
      row = id_to_row(t, *s.selection.scroll_to);
    }
    if (row) {
      const float y = static_cast<float>(*row) * row_h;
      const float view_h = ImGui::GetWindowHeight() - row_h * 2;  // minus the frozen header
      const float top = ImGui::GetScrollY();
      if (y < top || y + row_h > top + view_h) ImGui::SetScrollY(std::max(0.0f, y - view_h * 0.5f));
    }
    s.selection.scroll_to.reset();
  }
  ImGuiListClipper clipper;
  // ImGuiListClipper counts in int: runs beyond 2^31 rows show the first 2^31.
  clipper.Begin(static_cast<int>(std::min<uint64_t>(rows, INT32_MAX)), row_h);
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint64_t r = static_cast<uint64_t>(i);
      draw_row(s, x, searching ? t.matches[r] : row_to_id(t, r), searching);
    }
  clipper.End();
  ImGui::EndTable();
  t.last_selected = s.selection.event;
}

}  // namespace tvis::viewer
