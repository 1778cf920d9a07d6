#include "tvis/viewer_model/user_time.h"

#include <algorithm>

namespace tvis::viewer {

UserTime phase_time(int64_t ns, int64_t own_ns) {
  UserTime t;
  t.wall = std::max<int64_t>(0, ns);
  t.known = own_ns >= 0;
  t.own = t.known ? std::min(own_ns, t.wall) : 0;
  t.user = t.wall - t.own;
  return t;
}

UserTime event_time(const schema::Event* e) {
  const int64_t wall = e->t_end_ns() >= e->t_begin_ns() ? e->t_end_ns() - e->t_begin_ns() : 0;
  return phase_time(wall, e->own_ns());
}

UserTime event_time(const CallRef& call) { return event_time(call.record()); }

UserSpan user_span(const CallRef& call) { return user_span(call.record()); }

UserSpan user_span(const schema::Event* e) {
  const UserTime t = event_time(e);
  const int64_t before = t.known && e->own_before_ns() > 0 ? e->own_before_ns() : 0;
  UserSpan s;
  s.begin = e->t_begin_ns() - before;
  s.end = s.begin + t.user;
  return s;
}

}  // namespace tvis::viewer
