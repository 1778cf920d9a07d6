// Issue 29 item 6: a run file of a few hundred bytes whose AllReduce event names step 2^31-1
// made summarize_run() loop from step 0 with an int32_t that overflowed, growing all_reduce_ms
// until memory ran out. Every loop and allocation of the summary is bounded by what the file
// holds (a recorded step has at least one event). The crafted file is kept in
// tests/fuzz/regressions/allreduce_step_int32_max.tvis (fuzz_reader replays it).
#include <catch2/catch.hpp>

#include <chrono>
#include <climits>
#include <memory>

#include "test_util.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/chunk_pack.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/run_summary.h"
#include "tvis/format/run_writer.h"
#include "tvis/schema/recording_generated.h"

namespace sc = tvis::schema;
namespace fmt = tvis::format;

namespace {

// A run of one EventBatch: AllReduce events at `steps`.
std::string allreduce_run(const std::string& name, const std::vector<int32_t>& steps) {
  const std::string path = tvis::test::temp_path(name);
  auto w = fmt::RunWriter::create(path);
  REQUIRE(w.ok());
  sc::EventBatchT b;
  uint64_t id = 1;
  for (int32_t step : steps) {
    auto e = std::make_unique<sc::EventT>();
    e->id = id++;
    e->kind = sc::EventKind::AllReduce;
    e->step = step;
    e->name = "all_reduce";
    e->t_begin_ns = 1000;
    e->t_end_ns = 3000;
    b.events.push_back(std::move(e));
  }
  sc::ChunkT chunk;
  chunk.body.Set(std::move(b));
  fmt::ChunkInfo info;
  info.kind = uint16_t(fmt::ChunkKind::Events);
  w.value()->append(info, fmt::pack_chunk(chunk));
  REQUIRE(w.value()->finalize().is_ok());
  return path;
}

fmt::RunSummary summary_of(const std::string& path) {
  auto reader = fmt::RunReader::open_sync(fmt::open_file_source(path).value());
  REQUIRE(reader.ok());
  auto s = fmt::summarize_run(*reader.value());
  REQUIRE(s.ok());
  return s.value();
}

}  // namespace

TEST_CASE("summary: an AllReduce step of INT32_MAX is bounded by the events the file holds", "[summary][hostile]") {
  const std::string path = allreduce_run("allreduce_max.tvis", {INT32_MAX});
  const fmt::RunSummary s = summary_of(path);
  CHECK(s.events == 1);
  CHECK(s.all_reduce_ms.size() <= 1);
  REQUIRE_FALSE(s.notices.empty());
  CHECK(s.notices.back().find("AllReduce events name step 2147483647") != std::string::npos);
  // The same bytes as the regression corpus keeps them (replayed by fuzz_reader and by this test).
  const auto kept = tvis::test::read_file(std::string(TVIS_TEST_DATA_DIR) + "/../fuzz/regressions/allreduce_step_int32_max.tvis");
  REQUIRE_FALSE(kept.empty());
  auto reader = fmt::RunReader::open_sync(tvis::test::memory(kept));
  REQUIRE(reader.ok());
  auto k = fmt::summarize_run(*reader.value());
  REQUIRE(k.ok());
  CHECK(k.value().all_reduce_ms.size() <= k.value().events);
}

TEST_CASE("summary: AllReduce steps from 0 stay per step, gaps are 0", "[summary]") {
  const fmt::RunSummary s = summary_of(allreduce_run("allreduce_gaps.tvis", {0, 2, 2, -1}));
  REQUIRE(s.all_reduce_ms.size() == 3);
  CHECK(s.all_reduce_ms[0] == Approx(0.002));
  CHECK(s.all_reduce_ms[1] == 0.0);
  CHECK(s.all_reduce_ms[2] == Approx(0.004));
}

// Issue 46: what a summary copies is bounded by the file's bytes, not by what
// its records reference (tests/data/hostile, make_hostile_chunks.cpp).
TEST_CASE("summary: a RunMeta whose argv and notices share one string is copied within bounds", "[summary][hostile]") {
  const auto kept = tvis::test::read_file(std::string(TVIS_TEST_DATA_DIR) + "/hostile/chunk_shared_argv.tvis");
  REQUIRE_FALSE(kept.empty());
  auto reader = fmt::RunReader::open_sync(tvis::test::memory(kept));
  REQUIRE(reader.ok());
  auto s = fmt::summarize_run(*reader.value());
  REQUIRE(s.ok());
  const fmt::RunSummary& r = s.value();
  CHECK(r.script == "train.py");
  REQUIRE(r.argv.size() >= 1);
  REQUIRE(r.argv.size() <= fmt::kSummaryListItems + 1);
  CHECK(r.argv.back() == "... (20000 arguments in all)");
  size_t bytes = 0;
  for (const auto& a : r.argv) bytes += a.size();
  CHECK(bytes <= fmt::kSummaryListBytes + 64);
  REQUIRE_FALSE(r.notices.empty());
  CHECK(r.notices.size() <= fmt::kSummaryListItems + 1);
  CHECK(r.notices.back().find("holds 20000 notices") != std::string::npos);
}

TEST_CASE("summary: 200,000 events sharing a 1 MiB name cost one copy of it", "[summary][hostile]") {
  const auto kept = tvis::test::read_file(std::string(TVIS_TEST_DATA_DIR) + "/hostile/chunk_same_name_events.tvis");
  REQUIRE_FALSE(kept.empty());
  auto reader = fmt::RunReader::open_sync(tvis::test::memory(kept));
  REQUIRE(reader.ok());
  const auto t0 = std::chrono::steady_clock::now();
  auto s = fmt::summarize_run(*reader.value());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(s.ok());
  CHECK(s.value().events == 200000);
  REQUIRE(s.value().modules.size() == 1);
  CHECK(s.value().modules[0].size() == fmt::kSummaryFieldBytes + 3);  // cut, "..." appended
  CHECK(seconds < 2.0);  // was 25 s: the name copied and hashed per event
}
