// user_time.h: the user's time of a call or phase, with tvis's own time apart.
//
// A run records each event's wall time (t_begin_ns .. t_end_ns) and, since
// own time was measured, the part of it tvis spent on its own work (own_ns:
// hooks, captures, Grad-CAM passes, host copies, writer waits) and tvis's own
// time before it began (own_before_ns); phase timings likewise (ns, own_ns).
//
// Contract:
//   - known: the run recorded own time for this event or phase (own_ns >= 0).
//     Without it, user == wall and own == 0: the times are wall times that
//     include tvis's work, and the viewer says so.
//   - user = wall - own, never negative; own <= wall.
//   - The user's clock of a run: a moment t of an event boundary is at
//     t - (tvis's own time before t). user_begin/user_end are an event's
//     boundaries on it: they nest as the events do, and user_end -
//     user_begin == user. Without own time they are the wall times.
#pragma once

#include <cstdint>

#include <tvis/schema/recording_generated.h>

#include "tvis/viewer_model/call_ref.h"

namespace tvis::viewer {

struct UserTime {
  bool known = false;  // own time was recorded
  int64_t wall = 0;    // ns
  int64_t own = 0;     // tvis's part of wall (0 when unknown)
  int64_t user = 0;    // wall - own
};

/// Of one event (wall 0 for an event not ended or with no times).
UserTime event_time(const schema::Event* e);
UserTime event_time(const CallRef& call);
/// Of a phase timing's wall `ns` and recorded `own_ns` (-1: not recorded).
UserTime phase_time(int64_t ns, int64_t own_ns);

/// An event's begin and end on the user's clock (ns; see above).
struct UserSpan {
  int64_t begin = 0, end = 0;
};
UserSpan user_span(const schema::Event* e);
UserSpan user_span(const CallRef& call);

}  // namespace tvis::viewer
