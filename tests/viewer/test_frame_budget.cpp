// The per-frame decode budget (ChunkCache::begin_frame, AppOptions::
// frame_decode_bytes) through the whole App: opening the Timeline or Source
// panel on a step of ~33k calls spreads the decoding of that step's Events
// chunks over frames, draws a placeholder meanwhile, and completes with the
// same figures an unlimited read gives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "app_state.h"
#include "headless_app.h"
#include "pages/explore_state.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include "tvis/schema/recording_generated.h"

namespace sc = tvis::schema;
namespace fmt = tvis::format;
namespace vw = tvis::viewer;
using tvis::test::HeadlessApp;

namespace {

constexpr int kSteps = 3;
constexpr uint64_t kCalls = 100000;  // ~33k per step, as in bench_viewer's 1 GB run

const std::string& big_run() {
  static const std::string path = tvis::test::write_synthetic_run("budget_100k.tvis", kSteps, kCalls);
  return path;
}

struct RunFacts {
  uint64_t largest_events_chunk = 0;   // raw bytes
  uint64_t largest_chunk = 0;          // raw bytes, any kind
  size_t step1_events_chunks = 0;      // Events chunks whose step range holds step 1
  size_t step1_timed_calls = 0;        // what the timeline counts for step 1
  size_t step1_module_calls = 0;       // the Layers table's rows for step 1
  std::map<uint64_t, uint32_t> line_calls;  // (file << 32 | line) -> calls, the Source panel's counts
};

// Read straight from the file with the format's reader, not through the viewer.
RunFacts facts(const std::string& path) {
  RunFacts f;
  auto source = fmt::open_file_source(path);
  REQUIRE(source.ok());
  auto reader = fmt::RunReader::open_sync(source.value());
  REQUIRE(reader.ok());
  for (const auto& c : reader.value()->chunks()) {
    f.largest_chunk = std::max<uint64_t>(f.largest_chunk, c.raw_size);
    if (c.info.kind != static_cast<uint16_t>(fmt::ChunkKind::Events)) continue;
    f.largest_events_chunk = std::max<uint64_t>(f.largest_events_chunk, c.raw_size);
    if (c.info.step_first <= 1 && 1 <= c.info.step_last) ++f.step1_events_chunks;
    auto chunk = reader.value()->read_chunk_sync(c.ordinal);
    REQUIRE(chunk.ok());
    for (const auto* e : *chunk.value()->root()->body_as_EventBatch()->events()) {
      const bool marker = e->kind() == sc::EventKind::PhaseBegin || e->kind() == sc::EventKind::PhaseEnd;
      const int phase = static_cast<int>(e->phase());
      if (e->step() == 1 && !marker && e->t_end_ns() >= e->t_begin_ns() && phase >= 1 && phase <= 5)
        ++f.step1_timed_calls;
      if (e->step() == 1 && e->kind() == sc::EventKind::ModuleCall) ++f.step1_module_calls;
      if (!marker && e->call_line() > 0) ++f.line_calls[(uint64_t{e->call_file()} << 32) | e->call_line()];
    }
  }
  return f;
}

// Frames the App until `done` holds (at most `limit` frames); checks that no
// frame decoded more than `budget` raw bytes plus one chunk (`largest`).
// Returns the frames that decoded something.
template <typename Done>
int frames_within_budget(HeadlessApp& h, uint64_t budget, uint64_t largest, int limit, Done done) {
  const vw::ChunkCache& cache = h.app().internals().model.cache();
  int decoding_frames = 0;
  for (int i = 0; i < limit && !done(); ++i) {
    const uint64_t bytes0 = cache.decoded_bytes(), chunks0 = cache.decoded_chunks();
    h.frame();
    const uint64_t bytes = cache.decoded_bytes() - bytes0, chunks = cache.decoded_chunks() - chunks0;
    INFO("frame " << i << ": " << chunks << " chunks, " << bytes << " raw bytes decoded");
    CHECK(bytes <= budget + largest);
    if (chunks) ++decoding_frames;
  }
  return decoding_frames;
}

}  // namespace

TEST_CASE("a 33k-call step opens in the Timeline over several frames, within the decode budget", "[viewer][budget]") {
  const RunFacts f = facts(big_run());
  REQUIRE(f.step1_events_chunks >= 4);
  REQUIRE(f.step1_timed_calls > 30000);
  vw::AppOptions options;
  options.frame_decode_bytes = f.largest_events_chunk * 2;  // ~2 Events chunks a frame
  HeadlessApp h(options);
  h.app().open(tvis::test::file_source_for(big_run()));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(2);
  vw::AppState& s = h.app().internals();
  REQUIRE(s.model.ready());
  s.selection.step = 1;
  REQUIRE(h.app().show_panel("Timeline"));
  h.frame();
  vw::ExploreState* x = vw::existing_page_state<vw::ExploreState>(s, *vw::page_named("Explore"));
  REQUIRE(x);
  const vw::TimelineState& t = x->timeline;
  CHECK_FALSE(t.complete);  // the placeholder frame: the step is still loading
  const int decoding = frames_within_budget(h, options.frame_decode_bytes, f.largest_chunk, 200, [&] { return t.complete; });
  REQUIRE(t.complete);
  CHECK(decoding >= 2);  // spread over frames, not all at once
  CHECK(t.calls == f.step1_timed_calls);
  CHECK(t.t1 > t.t0);
}

TEST_CASE("the Source panel counts calls over the whole run within the decode budget", "[viewer][budget]") {
  const RunFacts f = facts(big_run());
  vw::AppOptions options;
  options.frame_decode_bytes = f.largest_events_chunk * 2;
  HeadlessApp h(options);
  h.app().open(tvis::test::file_source_for(big_run()));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(2);
  REQUIRE(h.app().show_panel("Source"));
  vw::AppState& s = h.app().internals();
  h.frame();
  vw::ExploreState* x = vw::existing_page_state<vw::ExploreState>(s, *vw::page_named("Explore"));
  REQUIRE(x);
  const vw::SourceViewState& v = x->source;
  const int decoding = frames_within_budget(h, options.frame_decode_bytes, f.largest_chunk, 400, [&] { return v.counting_done; });
  REQUIRE(v.counting_done);
  CHECK(decoding >= 2);
  REQUIRE(v.line_calls.size() == f.line_calls.size());
  for (const auto& [key, n] : f.line_calls) {
    INFO("file " << (key >> 32) << " line " << (key & 0xffffffffu));
    auto it = v.line_calls.find(key);
    REQUIRE(it != v.line_calls.end());
    CHECK(it->second == n);
  }
}

TEST_CASE("the Layers table of a 33k-call step is built over frames, within the decode budget", "[viewer][budget]") {
  const RunFacts f = facts(big_run());
  REQUIRE(f.step1_module_calls > 10000);
  vw::AppOptions options;
  options.frame_decode_bytes = f.largest_events_chunk * 2;
  HeadlessApp h(options);
  h.app().open(tvis::test::file_source_for(big_run()));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(2);
  vw::AppState& s = h.app().internals();
  s.selection.step = 1;
  REQUIRE(h.app().show_panel("Layers"));
  h.frame();
  vw::ExploreState* x = vw::existing_page_state<vw::ExploreState>(s, *vw::page_named("Explore"));
  REQUIRE(x);
  const vw::LayersState& l = x->layers;
  CHECK_FALSE(l.complete);
  size_t most_rows_in_a_frame = 0;
  for (int i = 0; i < 400 && !l.complete; ++i) {
    const size_t before = l.rows.size();
    frames_within_budget(h, options.frame_decode_bytes, f.largest_chunk, 1, [] { return false; });
    if (l.rows.size() > before) most_rows_in_a_frame = std::max(most_rows_in_a_frame, l.rows.size() - before);
  }
  REQUIRE(l.complete);
  CHECK(l.rows.size() == f.step1_module_calls);
  CHECK(most_rows_in_a_frame < f.step1_module_calls / 2);  // built in slices, not in one frame
  CHECK(std::is_sorted(l.rows.begin(), l.rows.end(),
                       [](const vw::LayerRow& a, const vw::LayerRow& b) { return a.event < b.event; }));
}

TEST_CASE("the frame budget: no limit without begin_frame; one pass past it a frame, to the oldest deferred chunk",
          "[viewer][budget][cache]") {
  auto source = tvis::test::file_source_for(big_run());
  auto reader = fmt::RunReader::open_sync(source);
  REQUIRE(reader.ok());
  std::vector<uint32_t> events;
  for (const auto& c : reader.value()->chunks())
    if (c.info.kind == static_cast<uint16_t>(fmt::ChunkKind::Events)) events.push_back(c.ordinal);
  REQUIRE(events.size() >= 4);
  auto cache = std::make_shared<vw::ChunkCache>(reader.value(), 1ull << 30);
  for (uint32_t o : events) CHECK(cache->get(o));  // no begin_frame: all decode at once
  auto limited = std::make_shared<vw::ChunkCache>(reader.value(), 1ull << 30);
  limited->begin_frame(1);  // smaller than any chunk
  CHECK(limited->get(events[0]));         // the frame's one pass: nothing was waiting
  CHECK_FALSE(limited->get(events[1]));   // past the budget: placeholder, no read
  CHECK_FALSE(limited->loading(events[1]));
  CHECK(limited->decoded_chunks() == 1);
  limited->begin_frame(1);
  CHECK_FALSE(limited->get(events[2]));  // asked first, but events[1] has waited longer
  CHECK(limited->get(events[1]));        // the pass goes to the oldest deferred chunk
  CHECK(limited->get(events[0]));        // resident chunks cost nothing
  CHECK(limited->decoded_chunks() == 2);
  limited->begin_frame(1);
  CHECK(limited->get(events[2]));
  CHECK(limited->decoded_chunks() == 3);
  // A deferred chunk nobody asks for any more gives up its turn.
  CHECK_FALSE(limited->get(events[3]));
  limited->begin_frame(1);
  limited->begin_frame(1);
  CHECK(limited->get(events.back()));
  CHECK(limited->decoded_chunks() == 4);
}
