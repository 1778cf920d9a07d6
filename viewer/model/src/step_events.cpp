// step_events.cpp: step_events.h.
#include "tvis/viewer_model/step_events.h"

#include "tvis/viewer_model/run_model.h"
#include "tvis/format/fb_string.h"

namespace tvis::viewer {

namespace {

using format::str;

TimelineEvent timeline_event(const schema::Event& e, int depth) {
  TimelineEvent t;
  t.id = e.id();
  t.kind = e.kind();
  t.phase = e.phase();
  t.name = str(e.name());
  t.class_name = str(e.class_name());
  t.t_begin_ns = e.t_begin_ns();
  t.t_end_ns = e.t_end_ns();
  t.own_ns = e.own_ns();
  t.own_before_ns = e.own_before_ns();
  t.depth = depth;
  t.time = event_time(&e);
  t.user = user_span(&e);
  return t;
}

}  // namespace

bool step_events(RunModel& model, int step, std::vector<TimelineEvent>* out) {
  out->clear();
  return model.for_step_events(step, [&](const schema::Event* e) {
    out->push_back(timeline_event(*e, model.tree().depth(e->id())));
  });
}

}  // namespace tvis::viewer
