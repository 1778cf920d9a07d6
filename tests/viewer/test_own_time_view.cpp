// The user's time with tvis's own time apart (viewer/model user_time.h) in
// Explore: state()'s view.phase_times, view.event_time and view.timeline, the
// Timeline's two clocks, and an old run (no own time) shown as wall time.
//
// The run is written here the way the recorder writes one: a 1 ms forward, a
// loss call of 268 ms wall of which 267.99 ms were tvis's (Grad-CAM's passes),
// a 3 ms backward.
#include <catch2/catch.hpp>
#include <filesystem>
#include <tuple>
#include <unistd.h>

#include "app_state.h"
#include "headless_app.h"
#include "page.h"
#include "pages/explore_state.h"
#include "scratch_dir.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/chunk_pack.h"
#include "tvis/format/run_writer.h"
#include "tvis/schema/recording_generated.h"
#include "tvis/viewer_model/step_events.h"
#include "tvis/viewer_model/user_time.h"

using nlohmann::json;
using tvis::test::HeadlessApp;
namespace sc = tvis::schema;
namespace fmt = tvis::format;
namespace vw = tvis::viewer;

namespace {

constexpr int64_t kMs = 1000000;

struct Ev {
  uint64_t id;
  int64_t parent;
  sc::EventKind kind;
  sc::Phase phase;
  const char* name;
  int64_t begin, end, own, own_before;
};

// Step 0: forward (with a child), the loss call, the backward.
const Ev kEvents[] = {
    {0, -1, sc::EventKind::ModuleCall, sc::Phase::Forward, "Net", 0, 1 * kMs, kMs / 10, 0},
    {1, 0, sc::EventKind::ModuleCall, sc::Phase::Forward, "fc", kMs / 10, 9 * kMs / 10, kMs / 20, kMs / 50},
    {2, -1, sc::EventKind::LossCall, sc::Phase::Loss, "cross_entropy", 1 * kMs, 269 * kMs, 267990000, kMs / 10},
    {3, -1, sc::EventKind::BackwardCall, sc::Phase::Backward, "backward", 269 * kMs, 272 * kMs, kMs / 2, 268090000},
};

void append(fmt::RunWriter& w, fmt::ChunkKind kind, sc::BodyUnion body, int step) {
  fmt::ChunkInfo info;
  info.kind = static_cast<uint16_t>(kind);
  info.step_first = info.step_last = step;
  if (kind == fmt::ChunkKind::Events) {
    info.event_first = 0;
    info.event_last = 3;
  }
  w.append(info, fmt::pack_chunk(std::move(body)));
}

/// A run of kEvents; `own`: with own time (else as a file written before it was measured).
std::string write_run(bool own) {
  const std::string path = tvis::test::scratch_path("own_time_" + std::to_string(own) + ".tvis");
  auto w = fmt::RunWriter::create(path);
  REQUIRE(w.ok());
  sc::EventBatchT batch;
  for (const Ev& v : kEvents) {
    auto e = std::make_unique<sc::EventT>();
    e->id = v.id;
    e->parent = v.parent;
    e->kind = v.kind;
    e->step = 0;
    e->phase = v.phase;
    e->name = v.name;
    e->t_begin_ns = v.begin;
    e->t_end_ns = v.end;
    if (own) {
      e->own_ns = v.own;
      e->own_before_ns = v.own_before;
    }
    batch.events.push_back(std::move(e));
  }
  sc::BodyUnion events;
  events.Set(std::move(batch));
  append(*w.value(), fmt::ChunkKind::Events, std::move(events), 0);
  sc::RunMetaT meta;
  meta.kind = sc::RunKind::Training;
  meta.script = "train.py";
  meta.steps_requested = meta.steps_recorded = 1;
  meta.complete = true;
  const std::tuple<sc::Phase, int64_t, int64_t> phases[] = {
      {sc::Phase::Forward, 1 * kMs, kMs / 10}, {sc::Phase::Loss, 268 * kMs, 267990000},
      {sc::Phase::Backward, 3 * kMs, kMs / 2}};
  for (const auto& [phase, ns, own_ns] : phases) {
    auto t = std::make_unique<sc::PhaseTimingT>();
    t->step = 0;
    t->phase = phase;
    t->ns = ns;
    if (own) t->own_ns = own_ns;
    meta.phase_timings.push_back(std::move(t));
  }
  sc::BodyUnion m;
  m.Set(std::move(meta));
  append(*w.value(), fmt::ChunkKind::RunMeta, std::move(m), 0);
  REQUIRE(w.value()->finalize().ok());
  return path;
}

json phase_of(const json& view, const std::string& name) {
  for (const json& p : view["phase_times"])
    if (p["phase"] == name) return p;
  FAIL("no phase " << name << " in " << view.dump());
  return nullptr;
}

// Explore with the Timeline shown and the loss call selected.
json explore_loss_call(HeadlessApp& h, const std::string& path) {
  h.app().open(tvis::test::file_source_for(path));
  h.show_page("Explore");
  h.frame(2);
  REQUIRE(h.app().command(json{{"select", 2}}.dump()) == "true");
  REQUIRE(h.app().show_panel("Timeline"));
  h.frame(3);
  return h.state()["view"];
}

}  // namespace

TEST_CASE("user_time: user = wall - own; the user's clock nests; unknown own time is wall time", "[viewer][own_time]") {
  const vw::UserTime a = vw::phase_time(268 * kMs, 267990000);
  CHECK(a.known);
  CHECK(a.user == 10000);
  CHECK(a.user + a.own == a.wall);
  const vw::UserTime old = vw::phase_time(268 * kMs, -1);
  CHECK_FALSE(old.known);
  CHECK(old.user == old.wall);
  CHECK(old.own == 0);
  const vw::UserTime clamped = vw::phase_time(5, 9);  // own beyond wall: at most wall
  CHECK(clamped.own == 5);
  CHECK(clamped.user == 0);
}

TEST_CASE("Explore shows the user's time, tvis's own time apart, and both clocks of the Timeline", "[viewer][own_time]") {
  const std::string path = write_run(true);
  HeadlessApp h;
  json view = explore_loss_call(h, path);
  const json loss = phase_of(view, "loss");
  CHECK(loss["wall_ms"].get<double>() == Approx(268));
  CHECK(loss["user_ms"].get<double>() == Approx(0.01));
  CHECK(loss["own_ms"].get<double>() == Approx(267.99));
  CHECK(phase_of(view, "forward")["user_ms"].get<double>() == Approx(0.9));
  REQUIRE(view["event"] == 2);
  CHECK(view["event_time"]["user_ms"].get<double>() == Approx(0.01));
  CHECK(view["event_time"]["own_ms"].get<double>() == Approx(267.99));
  CHECK(view["event_time"]["wall_ms"].get<double>() == Approx(268));

  // The Timeline: the user's clock by default, tvis's time taken out of it.
  const json& tl = view["timeline"];
  CHECK(tl["clock"] == "user");
  CHECK(tl["own_recorded"] == true);
  CHECK(tl["calls"] == 4);
  CHECK(tl["own_ms"].get<double>() == Approx(268.59));  // own before the backward's end: 268.09 + 0.5
  vw::AppState& s = h.app().internals();
  vw::ExploreState* x = vw::existing_page_state<vw::ExploreState>(s, *vw::page_named("Explore"));
  REQUIRE(x);
  // 272 ms of wall time, of which 268.59 ms were tvis's: 3.41 ms on the user's clock
  CHECK(x->timeline.t1 - x->timeline.t0 == Approx(3.41 * kMs));
  CHECK(tl["own_bars"] == 0);

  // The wall clock, with the tvis lane.
  REQUIRE(h.app().command(json{{"timeline_clock", "wall"}}.dump()) == "true");
  h.frame(2);
  view = h.state()["view"];
  CHECK(view["timeline"]["clock"] == "wall");
  CHECK(view["timeline"]["own_bars"].get<int>() > 0);
  CHECK(x->timeline.t1 - x->timeline.t0 == Approx(272.0 * kMs));
  CHECK(h.app().command(json{{"timeline_clock", "sideways"}}.dump()) == "false");
  REQUIRE(h.app().command(json{{"timeline_clock", "user"}}.dump()) == "true");
  h.frame(2);
  CHECK(h.state()["view"]["timeline"]["clock"] == "user");
  std::filesystem::remove(path);
}

TEST_CASE("step_events: the step's events as plain values, with depth and the user's clock", "[viewer][own_time]") {
  const std::string path = write_run(true);
  HeadlessApp h;
  explore_loss_call(h, path);
  vw::AppState& s = h.app().internals();
  std::vector<vw::TimelineEvent> events;
  REQUIRE(vw::step_events(s.model, 0, &events));
  REQUIRE(events.size() == std::size(kEvents));
  for (size_t i = 0; i < events.size(); ++i) {
    const vw::TimelineEvent& e = events[i];
    const Ev& v = kEvents[i];
    CHECK(e.id == v.id);
    CHECK(e.kind == v.kind);
    CHECK(e.phase == v.phase);
    CHECK(e.name == v.name);
    CHECK(e.t_begin_ns == v.begin);
    CHECK(e.t_end_ns == v.end);
    CHECK(e.own_ns == v.own);
    CHECK(e.own_before_ns == v.own_before);
    CHECK(e.depth == (v.parent < 0 ? 0 : 1));
    CHECK(e.time.user == e.user.end - e.user.begin);
  }
  CHECK(events[2].user.begin == 1 * kMs - kMs / 10);  // the loss call's begin, tvis's time before it taken out
  CHECK(events[2].time.user == 10000);
  REQUIRE(vw::step_events(s.model, 5, &events));  // a step not recorded: none
  CHECK(events.empty());
  std::filesystem::remove(path);
}

TEST_CASE("a run without own time shows wall times and says own time was not recorded", "[viewer][own_time]") {
  const std::string path = write_run(false);
  HeadlessApp h;
  const json view = explore_loss_call(h, path);
  const json loss = phase_of(view, "loss");
  CHECK(loss["wall_ms"].get<double>() == Approx(268));
  CHECK(loss["user_ms"].get<double>() == Approx(268));
  CHECK(loss["own_ms"].is_null());
  CHECK(view["event_time"]["user_ms"].get<double>() == Approx(268));
  CHECK(view["event_time"]["own_ms"].is_null());
  CHECK(view["timeline"]["clock"] == "wall");
  CHECK(view["timeline"]["own_recorded"] == false);
  CHECK(view["timeline"]["own_ms"].is_null());
  CHECK(view["timeline"]["calls"] == 4);
  std::filesystem::remove(path);
}
