// step_events.h: the events of one step as the Timeline draws them, plain
// values copied out of the step's Event records.
//
// Contract:
//   - No FlatBuffers type crosses this header: a TimelineEvent holds copies.
//   - step_events fills `out` (cleared first) with the step's events that
//     have arrived, in chunk and record order, as RunModel::for_step_events
//     visits them, and returns whether every chunk that may hold the step
//     was read (false while one is still loading). It never blocks.
//   - depth is EventTree::depth at the time of the query: it walks up
//     through loaded parents only, so it can grow as chunks arrive.
//   - time and user are event_time and user_span of the record (user_time.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/user_time.h"

namespace tvis::viewer {

class RunModel;

struct TimelineEvent {
  uint64_t id = 0;
  EventKind kind = EventKind::ModuleCall;
  Phase phase = Phase::None;
  std::string name;                // "" when the record has none
  std::string class_name;          // "" when the record has none
  int64_t t_begin_ns = 0;          // wall clock
  int64_t t_end_ns = -1;           // < t_begin_ns: not ended
  int64_t own_ns = -1;             // tvis's own time within it (-1: not recorded)
  int64_t own_before_ns = -1;      // tvis's own time before it began (-1: not recorded)
  int depth = 0;                   // call depth below the top (EventTree::depth)
  UserTime time;                   // event_time of the record
  UserSpan user;                   // user_span of the record
};

/// The events of `step` copied into `out`; true when all of them have arrived.
bool step_events(RunModel& model, int step, std::vector<TimelineEvent>* out);

}  // namespace tvis::viewer
