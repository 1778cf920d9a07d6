// Timeline: the calls of one step along time, one lane per phase, nested
// calls stacked below their parents (a flame chart). Wheel zooms around the
// mouse, drag pans, double-click fits, click selects the call under the
// mouse. Follows the navigator's step; draws the chunks that have arrived.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>

#include "../theme.h"
#include "explore_state.h"
#include "tvis/widgets/axis_ticks.h"

namespace tvis::viewer {

namespace {

constexpr int kMaxRowsPerLane = 8;
constexpr Phase kLanes[] = {Phase::Data, Phase::Forward, Phase::Loss,
                                    Phase::Backward, Phase::Optimizer};

int lane_of(Phase p) {
  const int v = static_cast<int>(p) - 1;
  return v >= 0 && v < 5 ? v : -1;
}

bool is_call(const schema::Event* e) {
  return e->kind() != EventKind::PhaseBegin && e->kind() != EventKind::PhaseEnd &&
         e->t_end_ns() >= e->t_begin_ns();
}

}  // namespace

void draw_timeline(AppState& s, ExploreState& x) {
  TimelineState& t = x.timeline;
  if (t.step != s.selection.step) {
    t = TimelineState{};
    t.step = s.selection.step;
  }
  // Pass 1: extent and per-lane minimum depth.
  double lo = INFINITY, hi = -INFINITY;
  std::array<int, 5> min_depth;
  min_depth.fill(INT32_MAX);
  size_t calls = 0;
  const bool complete = s.model.for_step_events(t.step, [&](const schema::Event* e) {
    if (!is_call(e)) return;
    const int lane = lane_of(e->phase());
    if (lane < 0) return;
    ++calls;
    lo = std::min(lo, static_cast<double>(e->t_begin_ns()));
    hi = std::max(hi, static_cast<double>(e->t_end_ns()));
    min_depth[static_cast<size_t>(lane)] = std::min(min_depth[static_cast<size_t>(lane)], s.model.tree().depth(e->id()));
  });
  t.calls = calls;
  t.complete = complete;
  ImGui::TextDisabled("Step %d: %zu calls%s.  Wheel: zoom, drag: pan, double-click: fit, click: select.", t.step,
                      calls, complete ? "" : " (loading ...)");
  if (calls == 0 || !(hi > lo)) {
    if (complete) ImGui::TextDisabled("No timed calls recorded in this step.");
    return;
  }
  if (!t.fitted || t.t0 != lo || t.t1 != hi) {
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
  std::array<int, 5> lane_rows{};
  std::array<float, 5> lane_y{};
  float y = origin.y + axis_h;
  // Lane heights from depths seen (bounded).
  std::array<int, 5> max_depth{};
  max_depth.fill(0);
  s.model.for_step_events(t.step, [&](const schema::Event* e) {
    const int lane = is_call(e) ? lane_of(e->phase()) : -1;
    if (lane < 0) return;
    const int d = s.model.tree().depth(e->id()) - min_depth[static_cast<size_t>(lane)];
    max_depth[static_cast<size_t>(lane)] = std::max(max_depth[static_cast<size_t>(lane)], std::min(d, kMaxRowsPerLane - 1));
  });
  for (size_t k = 0; k < 5; ++k) {
    lane_rows[k] = min_depth[k] == INT32_MAX ? 1 : max_depth[k] + 1;
    lane_y[k] = y;
    y += static_cast<float>(lane_rows[k]) * row_h + 4;
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
  for (size_t k = 0; k < 5; ++k) {
    dl->AddRectFilled(ImVec2(origin.x, lane_y[k]), ImVec2(plot_x1, lane_y[k] + static_cast<float>(lane_rows[k]) * row_h),
                      k % 2 ? IM_COL32(255, 255, 255, 6) : IM_COL32(0, 0, 0, 30));
    dl->AddText(ImVec2(origin.x + 4, lane_y[k]), phase_color(kLanes[k]), phase_label(kLanes[k]));
  }
  dl->PopClipRect();

  // Bars.
  dl->PushClipRect(ImVec2(plot_x0, origin.y), ImVec2(plot_x1, origin.y + total_h), true);
  const schema::Event* under = nullptr;
  const ImVec2 m = io.MousePos;
  float last_x_end[5][kMaxRowsPerLane];
  for (auto& lane : last_x_end) std::fill(std::begin(lane), std::end(lane), -1e9f);
  s.model.for_step_events(t.step, [&](const schema::Event* e) {
    const int lane = is_call(e) ? lane_of(e->phase()) : -1;
    if (lane < 0) return;
    const double b = static_cast<double>(e->t_begin_ns()), en = static_cast<double>(e->t_end_ns());
    if (en < v0 || b > v1) return;
    const int row = std::min(kMaxRowsPerLane - 1, s.model.tree().depth(e->id()) - min_depth[static_cast<size_t>(lane)]);
    if (row < 0) return;
    float x0 = plot_x0 + static_cast<float>((b - v0) * scale);
    float x1 = std::max(x0 + 1.0f, plot_x0 + static_cast<float>((en - v0) * scale));
    float& last = last_x_end[lane][row];
    if (x1 <= last + 0.5f) return;  // sub-pixel and already covered: one bar per pixel column
    x0 = std::max(x0, last);
    last = x1;
    const float y0 = lane_y[static_cast<size_t>(lane)] + static_cast<float>(row) * row_h;
    const ImVec2 p0(x0, y0 + 1), p1(x1, y0 + row_h - 1);
    const bool sel = s.selection.event && *s.selection.event == e->id();
    dl->AddRectFilled(p0, p1, phase_color(e->phase()) & (sel ? 0xFFFFFFFF : 0xD0FFFFFF), 2);
    if (sel) dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1), IM_COL32(255, 255, 255, 255), 2, 0, 2);
    if (x1 - x0 > em * 2 && e->name()) {
      dl->PushClipRect(p0, p1, true);
      dl->AddText(ImVec2(x0 + 3, y0), IM_COL32(12, 14, 20, 255), e->name()->c_str());
      dl->PopClipRect();
    }
    if (hovered && m.x >= p0.x && m.x < p1.x && m.y >= p0.y && m.y < p1.y) under = e;
  });
  dl->PopClipRect();
  if (under) {
    ImGui::SetTooltip("%s  %s\n%s  (call #%" PRIu64 ")", under->name() ? under->name()->c_str() : "",
                      under->class_name() ? under->class_name()->c_str() : "",
                      duration_label(under->t_end_ns() - under->t_begin_ns()).c_str(), under->id());
    if (clicked) s.selection.select_event(under->id());
  }
}

}  // namespace tvis::viewer
