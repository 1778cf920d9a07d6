// Timeline: the calls of one step along time, one lane per phase, nested
// calls stacked below their parents (a flame chart). Wheel zooms around the
// mouse, drag pans, double-click fits, click selects the call under the
// mouse. Follows the navigator's step; draws the chunks that have arrived.
//
// Two clocks (user_time.h): "Your time" (the default) lays the calls out on
// the user's clock, tvis's own work taken out, so widths are the user's
// code's time; "Wall clock" lays them out as they ran and adds a "tvis" lane
// with tvis's own work between consecutive call boundaries (its amount is
// exact, its place within the interval is drawn at the interval's start).
// A run that recorded no own time shows wall time and says so.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <utility>
#include <vector>

#include "../theme.h"
#include "explore_state.h"
#include "tvis/viewer_model/step_events.h"
#include "tvis/widgets/axis_ticks.h"

namespace tvis::viewer {

namespace {

constexpr int kMaxRowsPerLane = 8;
constexpr Phase kLanes[] = {Phase::Data, Phase::Forward, Phase::Loss,
                                    Phase::Backward, Phase::Optimizer};
constexpr size_t kOwnLane = 5;  // after the phases: tvis's own work
constexpr ImU32 kOwnColor = IM_COL32(150, 150, 160, 255);

int lane_of(Phase p) {
  const int v = static_cast<int>(p) - 1;
  return v >= 0 && v < 5 ? v : -1;
}

bool is_call(const TimelineEvent& e) {
  return e.kind != EventKind::PhaseBegin && e.kind != EventKind::PhaseEnd && e.t_end_ns >= e.t_begin_ns;
}

}  // namespace

void draw_timeline(AppState& s, ExploreState& x) {
  TimelineState& t = x.timeline;
  if (t.step != s.selection.step) {
    const bool wall_clock = t.wall_clock;
    t = TimelineState{};
    t.step = s.selection.step;
    t.wall_clock = wall_clock;
  }
  if (!t.events_complete) t.events_complete = step_events(s.model, t.step, &t.events);
  const std::vector<TimelineEvent>& events = t.events;
  const bool complete = t.events_complete;
  // Pass 1: whether own time was recorded, tvis's own time over the step.
  bool own_known = false;
  int64_t own_lo = INT64_MAX, own_hi = INT64_MIN;
  for (const TimelineEvent& e : events) {
    if (e.own_ns < 0 || e.own_before_ns < 0 || e.t_end_ns < e.t_begin_ns) continue;
    own_known = true;
    own_lo = std::min(own_lo, e.own_before_ns);
    own_hi = std::max(own_hi, e.own_before_ns + e.own_ns);
  }
  t.own_known = own_known;
  t.own_ns = own_known ? std::max<int64_t>(0, own_hi - own_lo) : 0;
  const bool wall = t.wall_clock || !own_known;
  // The event's span on the clock drawn.
  auto span_of = [wall](const TimelineEvent& e) {
    if (wall) return std::pair<double, double>(static_cast<double>(e.t_begin_ns), static_cast<double>(e.t_end_ns));
    return std::pair<double, double>(static_cast<double>(e.user.begin), static_cast<double>(e.user.end));
  };
  // Pass 2: extent and per-lane minimum depth.
  double lo = INFINITY, hi = -INFINITY;
  std::array<int, 5> min_depth;
  min_depth.fill(INT32_MAX);
  size_t calls = 0;
  for (const TimelineEvent& e : events) {
    if (!is_call(e)) continue;
    const int lane = lane_of(e.phase);
    if (lane < 0) continue;
    ++calls;
    const auto [b, en] = span_of(e);
    lo = std::min(lo, b);
    hi = std::max(hi, en);
    min_depth[static_cast<size_t>(lane)] = std::min(min_depth[static_cast<size_t>(lane)], e.depth);
  }
  t.calls = calls;
  t.complete = complete;
  ImGui::TextDisabled("Step %d: %zu calls%s.  Wheel: zoom, drag: pan, double-click: fit, click: select.", t.step,
                      calls, complete ? "" : " (loading ...)");
  if (own_known) {
    ImGui::SameLine();
    bool clock_changed = false;
    if (ImGui::RadioButton("Your time", !t.wall_clock)) t.wall_clock = false, clock_changed = true;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Your code's time: tvis's own work (hooks, captures, Grad-CAM passes, copies,\n"
                        "writing) is taken out of the clock, so a call's width is the time it took you.");
    ImGui::SameLine();
    if (ImGui::RadioButton("Wall clock + tvis lane", t.wall_clock)) t.wall_clock = true, clock_changed = true;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The calls as they ran, tvis's work included; the tvis lane shows where it went.");
    ImGui::SameLine();
    ImGui::TextDisabled("tvis: %s", duration_label(t.own_ns).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("tvis's own work over this step's calls.");
    if (clock_changed) t.fitted = false;
  } else if (calls > 0) {
    ImGui::TextDisabled("This run did not record tvis's own time: these are wall times, tvis's work included.");
  }
  if (calls == 0 || !(hi > lo)) {
    if (complete) ImGui::TextDisabled("No timed calls recorded in this step.");
    return;
  }
  if (!t.fitted) {
    t.view0 = lo;
    t.view1 = hi;
    t.t0 = lo;
    t.t1 = hi;
    t.fitted = true;
  } else if (t.t0 != lo || t.t1 != hi) {
    if (!t.fitted || (t.view0 == t.t0 && t.view1 == t.t1)) {
      t.view0 = lo;
      t.view1 = hi;
    }
    t.t0 = lo;
    t.t1 = hi;
    t.fitted = true;
  }

  const float em = ImGui::GetFontSize();
  const float label_w = em * 5.5f, axis_h = em * 1.3f, row_h = em * 1.15f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float plot_x0 = origin.x + label_w, plot_x1 = origin.x + avail.x;
  const float plot_w = std::max(10.0f, plot_x1 - plot_x0);
  std::array<int, 6> lane_rows{};
  std::array<float, 6> lane_y{};
  float y = origin.y + axis_h;
  // Lane heights from depths seen (bounded).
  std::array<int, 5> max_depth{};
  max_depth.fill(0);
  for (const TimelineEvent& e : events) {
    const int lane = is_call(e) ? lane_of(e.phase) : -1;
    if (lane < 0) continue;
    const int d = e.depth - min_depth[static_cast<size_t>(lane)];
    max_depth[static_cast<size_t>(lane)] = std::max(max_depth[static_cast<size_t>(lane)], std::min(d, kMaxRowsPerLane - 1));
  }
  for (size_t k = 0; k < 5; ++k) {
    lane_rows[k] = min_depth[k] == INT32_MAX ? 1 : max_depth[k] + 1;
    lane_y[k] = y;
    y += static_cast<float>(lane_rows[k]) * row_h + 4;
  }
  const size_t lanes = own_known ? 6 : 5;
  if (own_known) {
    lane_rows[kOwnLane] = 1;
    lane_y[kOwnLane] = y;
    y += row_h + 4;
  }
  const float total_h = y - origin.y;
  ImGui::InvisibleButton("##timeline", ImVec2(avail.x, std::max(total_h, avail.y - 4)));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGuiIO& io = ImGui::GetIO();

  // Zoom / pan / fit.
  const double span = std::max(1.0, t.view1 - t.view0);
  if (hovered && io.MouseWheel != 0 && io.MousePos.x >= plot_x0) {
    const double at = t.view0 + (io.MousePos.x - plot_x0) / plot_w * span;
    const double f = std::pow(0.8, io.MouseWheel);
    const double ns = std::clamp(span * f, 100.0, (t.t1 - t.t0) * 1.05 + 100.0);
    t.view0 = at - (at - t.view0) / span * ns;
    t.view1 = t.view0 + ns;
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(0, 2.0f)) {
    const double dx = io.MouseDelta.x / plot_w * span;
    t.view0 -= dx;
    t.view1 -= dx;
  }
  if (hovered && ImGui::IsMouseDoubleClicked(0)) {
    t.view0 = t.t0;
    t.view1 = t.t1;
  }
  const bool clicked = ImGui::IsItemDeactivated() && hovered && ImGui::GetMouseDragDelta(0, 2.0f).x == 0.0f &&
                       ImGui::GetMouseDragDelta(0, 2.0f).y == 0.0f;
  const double v0 = t.view0, v1 = t.view1, scale = plot_w / std::max(1.0, v1 - v0);

  // Axis: time since the step began.
  dl->PushClipRect(ImVec2(origin.x, origin.y), ImVec2(plot_x1, origin.y + total_h), true);
  const auto ticks = widgets::nice_ticks((v0 - t.t0) / 1e6, (v1 - t.t0) / 1e6, std::max(2, static_cast<int>(plot_w / (em * 6))));
  for (double tk : ticks) {
    const float px = plot_x0 + static_cast<float>((tk * 1e6 + t.t0 - v0) * scale);
    dl->AddLine(ImVec2(px, origin.y + axis_h - 4), ImVec2(px, origin.y + total_h), IM_COL32(255, 255, 255, 18));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g ms", tk);
    dl->AddText(ImVec2(px + 3, origin.y), colors::kMuted, buf);
  }
  for (size_t k = 0; k < lanes; ++k) {
    dl->AddRectFilled(ImVec2(origin.x, lane_y[k]), ImVec2(plot_x1, lane_y[k] + static_cast<float>(lane_rows[k]) * row_h),
                      k % 2 ? IM_COL32(255, 255, 255, 6) : IM_COL32(0, 0, 0, 30));
    if (k == kOwnLane) dl->AddText(ImVec2(origin.x + 4, lane_y[k]), kOwnColor, "tvis");
    else dl->AddText(ImVec2(origin.x + 4, lane_y[k]), phase_color(kLanes[k]), phase_label(kLanes[k]));
  }
  dl->PopClipRect();

  // Bars.
  dl->PushClipRect(ImVec2(plot_x0, origin.y), ImVec2(plot_x1, origin.y + total_h), true);
  const TimelineEvent* under = nullptr;
  const ImVec2 m = io.MousePos;
  float last_x_end[5][kMaxRowsPerLane];
  for (auto& lane : last_x_end) std::fill(std::begin(lane), std::end(lane), -1e9f);
  for (const TimelineEvent& e : events) {
    const int lane = is_call(e) ? lane_of(e.phase) : -1;
    if (lane < 0) continue;
    const auto [b, en] = span_of(e);
    if (en < v0 || b > v1) continue;
    const int row = std::min(kMaxRowsPerLane - 1, e.depth - min_depth[static_cast<size_t>(lane)]);
    if (row < 0) continue;
    float x0 = plot_x0 + static_cast<float>((b - v0) * scale);
    float x1 = std::max(x0 + 1.0f, plot_x0 + static_cast<float>((en - v0) * scale));
    float& last = last_x_end[lane][row];
    if (x1 <= last + 0.5f) continue;  // sub-pixel and already covered: one bar per pixel column
    x0 = std::max(x0, last);
    last = x1;
    const float y0 = lane_y[static_cast<size_t>(lane)] + static_cast<float>(row) * row_h;
    const ImVec2 p0(x0, y0 + 1), p1(x1, y0 + row_h - 1);
    const bool sel = s.selection.event && *s.selection.event == e.id;
    dl->AddRectFilled(p0, p1, phase_color(e.phase) & (sel ? 0xFFFFFFFF : 0xD0FFFFFF), 2);
    if (sel) dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1), IM_COL32(255, 255, 255, 255), 2, 0, 2);
    if (x1 - x0 > em * 2 && !e.name.empty()) {
      dl->PushClipRect(p0, p1, true);
      dl->AddText(ImVec2(x0 + 3, y0), IM_COL32(12, 14, 20, 255), e.name.c_str());
      dl->PopClipRect();
    }
    if (hovered && m.x >= p0.x && m.x < p1.x && m.y >= p0.y && m.y < p1.y) under = &e;
  }
  // The tvis lane (own time recorded): on the wall clock, tvis's own work
  // between consecutive call boundaries, at the interval's start; on the
  // user's clock it takes no room, and the lane says how much was taken out.
  t.own_bars = 0;
  int64_t own_tip_ns = -1;  // the hovered tvis bar's own time
  if (own_known) {
    const float y0 = lane_y[kOwnLane];
    if (wall) {
      std::vector<std::pair<int64_t, int64_t>> marks;  // (wall time, tvis's own time so far)
      for (const TimelineEvent& e : events) {
        if (e.own_ns < 0 || e.own_before_ns < 0 || e.t_end_ns < e.t_begin_ns) continue;
        marks.emplace_back(e.t_begin_ns, e.own_before_ns);
        marks.emplace_back(e.t_end_ns, e.own_before_ns + e.own_ns);
      }
      std::sort(marks.begin(), marks.end());
      float last = -1e9f;
      for (size_t i = 0; i + 1 < marks.size(); ++i) {
        const int64_t gap = marks[i + 1].first - marks[i].first;
        const int64_t own = std::min(gap, marks[i + 1].second - marks[i].second);
        if (own <= 0) continue;
        const double b = static_cast<double>(marks[i].first), en = b + static_cast<double>(own);
        if (en < v0 || b > v1) continue;
        float x0 = plot_x0 + static_cast<float>((b - v0) * scale);
        const float x1 = std::max(x0 + 1.0f, plot_x0 + static_cast<float>((en - v0) * scale));
        if (x1 <= last + 0.5f) continue;
        x0 = std::max(x0, last);
        last = x1;
        dl->AddRectFilled(ImVec2(x0, y0 + 1), ImVec2(x1, y0 + row_h - 1), kOwnColor & 0xC0FFFFFF, 2);
        ++t.own_bars;
        if (hovered && m.x >= x0 && m.x < x1 && m.y >= y0 && m.y < y0 + row_h) {
          own_tip_ns = own;
        }
      }
    } else {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s of tvis's own work taken out of this clock (Wall clock shows where)",
                    duration_label(t.own_ns).c_str());
      dl->AddText(ImVec2(plot_x0 + 4, y0), colors::kMuted, buf);
    }
  }
  dl->PopClipRect();
  if (under) {
    const UserTime& ut = under->time;
    ImGui::SetTooltip("%s  %s\n%s%s  (call #%" PRIu64 ")", under->name.c_str(), under->class_name.c_str(),
                      ut.known ? "your time " : "", user_time_label(ut).c_str(), under->id);
    if (clicked) s.selection.select_event(under->id);
  } else if (own_tip_ns >= 0) {
    ImGui::SetTooltip("tvis's own work here: %s\n(its hooks, tensor captures and copies, Grad-CAM passes,\n"
                      "writing the run): not your code's time.",
                      duration_label(own_tip_ns).c_str());
  }
}

}  // namespace tvis::viewer
