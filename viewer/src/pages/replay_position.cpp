// Replay's position and how it moves (replay_state.h): step sizes, phase
// jumps, landing once a step's plan is read, playing and prefetching.
#include <imgui.h>

#include <algorithm>

#include "replay_state.h"

namespace tvis::viewer {

namespace {

constexpr int kPrefetchStops = 4;  // stops ahead whose tensors are asked for while playing

int land(const StepPlan& plan, const Landing& l) {
  const int n = static_cast<int>(plan.stops.size());
  if (n == 0) return -1;
  switch (l.kind) {
    case Landing::First: return 0;
    case Landing::Last: return n - 1;
    case Landing::FirstLayer:
      for (int i = 0; i < n; ++i)
        if (plan.stops[i].layer) return i;
      return 0;
    case Landing::LastLayer:
      for (int i = n - 1; i >= 0; --i)
        if (plan.stops[i].layer) return i;
      return n - 1;
    case Landing::Match: {
      if (l.event) {
        if (l.phase != Phase::None) {
          const int i = plan.find(*l.event, l.phase);
          if (i >= 0) return i;
        }
        for (int i = 0; i < n; ++i)
          if (plan.stops[i].event == *l.event) return i;
      }
      if (!l.module.empty()) {
        if (l.phase != Phase::None) {
          const int i = plan.find_name(l.module, l.phase);
          if (i >= 0) return i;
        }
        // the module in the phase it is played in first
        for (int i = 0; i < n; ++i)
          if (plan.stops[i].name == l.module && (l.phase == Phase::None || plan.stops[i].phase == l.phase))
            return i;
      }
      if (l.phase != Phase::None) {
        const int i = plan.first_of(l.phase);
        if (i >= 0) return i;
      }
      return 0;
    }
  }
  return 0;
}

void sync_selection(AppState& s, ReplayState& r) {
  const Stop* st = current_stop(s, r);
  s.selection.step = r.step;
  r.synced_step = r.step;
  if (!st) return;
  if (!s.selection.event || *s.selection.event != st->event) {
    s.selection.event = st->event;
    s.selection.scroll_to = st->event;
    s.selection.tensor.reset();
  }
  s.selection.phase = st->phase;
  r.synced_event = st->event;
}

// The next (+1) / previous (-1) stop index of the step size inside `plan`
// from `from`, or -1 when the move leaves the step.
int next_in_step(const StepPlan& plan, int from, int dir, StepSize size) {
  const int n = static_cast<int>(plan.stops.size());
  if (size == StepSize::Call) {
    const int i = from + dir;
    return i >= 0 && i < n ? i : -1;
  }
  if (size == StepSize::Layer) {
    for (int i = from + dir; i >= 0 && i < n; i += dir)
      if (plan.stops[i].layer) return i;
    return -1;
  }
  if (size == StepSize::Phase) {
    const Phase here = plan.stops[from].phase;
    if (dir > 0) {
      for (int i = from + 1; i < n; ++i)
        if (plan.stops[i].phase != here) return i;
      return -1;
    }
    // back: to this phase's first stop, or the previous phase's first stop
    const int start = plan.first_of(here);
    if (start >= 0 && start < from) return start;
    if (from == 0) return -1;
    const Phase prev = plan.stops[from - 1].phase;
    return plan.first_of(prev);
  }
  return -1;  // Batch: always leaves the step
}

}  // namespace

const char* step_size_label(StepSize size) {
  switch (size) {
    case StepSize::Layer: return "layer";
    case StepSize::Call: return "call";
    case StepSize::Phase: return "phase";
    case StepSize::Batch: return "batch";
  }
  return "layer";
}

const Stop* current_stop(AppState& s, ReplayState& r) {
  if (r.stop < 0) return nullptr;
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  if (!plan || r.stop >= static_cast<int>(plan->stops.size())) return nullptr;
  return &plan->stops[r.stop];
}

void go_to(AppState& s, ReplayState& r, int step, Landing landing) {
  const int steps = std::max(1, s.model.step_count());
  r.step = std::clamp(step, 0, steps - 1);
  r.stop = -1;
  r.landing = std::move(landing);
  r.scroll_diagram = true;
  r.at_end = false;
  s.selection.step = r.step;
  r.synced_step = r.step;
  update_position(s, r);
}

void move(AppState& s, ReplayState& r, int dir) {
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  if (!plan || r.stop < 0) return;  // pending: the move waits for the plan
  const int steps = s.model.step_count();
  const Stop here = plan->stops[r.stop];
  if (r.step_size == StepSize::Batch) {
    if (r.step + dir < 0 || r.step + dir >= steps) {
      r.at_end = dir > 0;
      return;
    }
    go_to(s, r, r.step + dir, Landing{Landing::Match, here.phase, here.name, std::nullopt});
    return;
  }
  const int i = next_in_step(*plan, r.stop, dir, r.step_size);
  if (i >= 0) {
    r.stop = i;
    r.scroll_diagram = true;
    sync_selection(s, r);
    return;
  }
  if (r.step + dir < 0 || r.step + dir >= steps) {
    r.at_end = dir > 0;
    return;
  }
  const bool layer = r.step_size == StepSize::Layer;
  go_to(s, r, r.step + dir,
        Landing{dir > 0 ? (layer ? Landing::FirstLayer : Landing::First) : (layer ? Landing::LastLayer : Landing::Last)});
}

void jump_phase(AppState& s, ReplayState& r, Phase phase, int dir) {
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  if (!plan) {
    if (phase != Phase::None) r.landing = Landing{Landing::Match, phase};
    return;
  }
  if (phase == Phase::None) {
    if (r.stop < 0) return;
    const StepSize keep = r.step_size;
    r.step_size = StepSize::Phase;
    move(s, r, dir);
    r.step_size = keep;
    return;
  }
  const int i = plan->first_of(phase);
  if (i < 0) return;  // not recorded in this step: the controls say so
  r.stop = i;
  r.landing.reset();
  r.scroll_diagram = true;
  sync_selection(s, r);
}

int replay_sample(AppState& s) { return s.followed_sample(); }

void update_position(AppState& s, ReplayState& r) {
  const int steps = s.model.step_count();
  if (steps <= 0) return;
  if (r.want_sample >= 0 && (!s.model.samples().followed().empty() || !s.model.samples().any())) {
    const int pos = s.model.samples().position(r.want_sample);
    if (pos >= 0) s.selection.sample_cursor = pos;
    r.want_sample = -1;
  }
  // Someone else moved the shared cursor (the navigator, a link, Explore):
  // follow it.
  if (s.selection.step != r.synced_step && s.selection.step >= 0 && s.selection.step < steps) {
    Landing l = r.stop < 0 && r.landing ? *r.landing : Landing{};
    if (s.selection.phase != Phase::None && l.kind != Landing::Match) l = Landing{Landing::Match, s.selection.phase};
    r.step = s.selection.step;
    r.stop = -1;
    r.landing = l;
    r.synced_step = r.step;
    r.scroll_diagram = true;
  } else if (r.stop >= 0 && s.selection.event && *s.selection.event != r.synced_event) {
    if (const StepPlan* plan = s.model.step_stops().plan(r.step)) {
      const int i = plan->find(*s.selection.event, s.selection.phase);
      const int j = i >= 0 ? i : plan->find(*s.selection.event, Phase::Forward);
      if (j >= 0) {
        r.stop = j;
        r.scroll_diagram = true;
      }
      r.synced_event = *s.selection.event;
    }
  }
  if (r.stop < 0) {
    if (const StepPlan* plan = s.model.step_stops().plan(r.step)) {
      r.stop = land(*plan, r.landing ? *r.landing : Landing{r.step_size == StepSize::Layer ? Landing::FirstLayer : Landing::First});
      r.landing.reset();
      if (r.stop >= 0) sync_selection(s, r);
    }
  }

  // Playing: one move per 1/speed seconds; the run's end pauses.
  if (r.playing) {
    r.play_clock += ImGui::GetIO().DeltaTime;
    const double period = 1.0 / std::max(0.25f, r.speed);
    int moves = 0;
    while (r.play_clock >= period && moves < 4) {
      r.play_clock -= period;
      if (r.stop < 0) break;  // waiting for the next step's plan
      move(s, r, +1);
      ++moves;
      if (r.at_end) {
        r.playing = false;
        break;
      }
    }
    if (r.play_clock > period * 4) r.play_clock = 0;
  }

  // Prefetch what playing reaches next: the next step's events and, only
  // while playing, the tensors of the next few stops (a paused position reads
  // what it draws and no more: a run's first page over ssh stays small).
  if (r.step + 1 < steps) s.model.step_stops().prefetch(r.step + 1);
  if (const StepPlan* plan = s.model.step_stops().plan(r.step); plan && r.stop >= 0 && r.playing) {
    const int sample = replay_sample(s);
    int ahead = 0;
    for (int i = r.stop + 1; i < static_cast<int>(plan->stops.size()) && ahead < kPrefetchStops; ++i) {
      const Stop& st = plan->stops[i];
      if (st.kind != EventKind::ModuleCall) continue;
      LayerTarget t;
      t.event = st.event;
      t.step = r.step;
      t.sample = sample;
      prefetch_layer(s.model, t);
      ++ahead;
    }
  }
}

}  // namespace tvis::viewer
