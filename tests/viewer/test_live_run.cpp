// Live runs in the App (viewer/src/live_run.h): a run file written chunk by
// chunk while the App shows it. The reference is the complete file's own
// summary (format::summarize_run), read apart from the App: the App must
// show each grown run without being reopened (page, step and selection
// kept), end complete and stop rechecking, and report a file that shrank.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "headless_app.h"
#include "tvis/format/container.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/run_summary.h"

namespace fmt = tvis::format;
using nlohmann::json;

namespace {

struct Written {
  std::string bytes;                  // the complete run
  std::vector<fmt::ChunkEntry> chunks;
  int64_t steps = 0;                  // the complete run's summary
  uint64_t events = 0;
};

Written complete_run(const std::string& name, int steps) {
  Written w;
  const std::string path = tvis::test::write_synthetic_run(name, steps, 8 * uint64_t(steps));
  w.bytes = tvis::test::read_file(path);
  auto reader = fmt::RunReader::open_sync(tvis::test::file_source_for(path));
  REQUIRE(reader.ok());
  w.chunks = reader.value()->chunks();
  auto summary = fmt::summarize_run(*reader.value());
  REQUIRE(summary.ok());
  w.steps = summary.value().steps;
  w.events = summary.value().events;
  return w;
}

// The end of the last chunk whose steps are all at most `step`.
uint64_t end_of_step(const Written& w, int step) {
  uint64_t end = fmt::kFileHeaderSize;
  for (const auto& c : w.chunks) {
    if (c.info.step_last > step) break;
    end = c.offset + fmt::kChunkHeaderSize + c.compressed_size;
  }
  return end;
}

void write_prefix(const std::string& path, const Written& w, uint64_t n) { tvis::test::write_file(path, w.bytes.substr(0, n)); }

json run_of(tvis::test::HeadlessApp& h) {
  json s = h.state();
  REQUIRE(s["run"].is_object());
  return s["run"];
}

}  // namespace

TEST_CASE("a live run grows in the App in place, keeps the position, ends complete", "[live]") {
  const Written w = complete_run("live_full.tvis", 5);
  REQUIRE(w.steps == 5);
  const std::string path = tvis::test::write_synthetic_run("live_growing.tvis", 1);  // a path; rewritten below
  write_prefix(path, w, end_of_step(w, 1));

  tvis::viewer::AppOptions options;
  options.live_recheck_seconds = 0;  // every frame
  tvis::test::HeadlessApp h(options);
  h.app().open(tvis::test::file_source_for(path));
  h.frame(3);
  json run = run_of(h);
  CHECK(run["live"] == true);
  CHECK(run["complete"] == false);
  CHECK(run["growths"] == 0);
  const int opened_steps = run["steps"];
  CHECK(opened_steps < w.steps);
  h.show_page("Explore");
  h.app().command(json{{"select", 1}}.dump());
  h.frame(2);
  REQUIRE(h.state()["page"] == "Explore");
  REQUIRE(h.state()["selection"]["event"] == 1);

  // More steps on disk, appended to the same file.
  {
    FILE* f = std::fopen(path.c_str(), "ab");
    const uint64_t from = end_of_step(w, 1), to = end_of_step(w, 3);
    REQUIRE(std::fwrite(w.bytes.data() + from, 1, to - from, f) == to - from);
    std::fclose(f);
  }
  h.frame(3);
  run = run_of(h);
  CHECK(run["live"] == true);
  CHECK(run["growths"] == 1);
  CHECK(int(run["steps"]) > opened_steps);
  CHECK(h.state()["page"] == "Explore");
  CHECK(h.state()["selection"]["event"] == 1);
  CHECK(h.state()["errors"].empty());

  // The writer finishes.
  {
    FILE* f = std::fopen(path.c_str(), "ab");
    const uint64_t from = end_of_step(w, 3);
    REQUIRE(std::fwrite(w.bytes.data() + from, 1, w.bytes.size() - from, f) == w.bytes.size() - from);
    std::fclose(f);
  }
  h.frame(3);
  run = run_of(h);
  CHECK(run["complete"] == true);
  CHECK(run["live"] == false);
  CHECK(run["steps"] == w.steps);
  CHECK(run["events"] == w.events);
  CHECK(run["file_bytes"] == w.bytes.size());
  CHECK(h.state()["selection"]["event"] == 1);
  CHECK(h.state()["errors"].empty());
  const int growths = run["growths"];
  h.frame(3);
  CHECK(run_of(h)["growths"] == growths);  // no longer rechecked
}

TEST_CASE("a live run over an asynchronous source: no frame waits for the recheck", "[live]") {
  const Written w = complete_run("live_async_full.tvis", 4);
  const std::string path = tvis::test::write_synthetic_run("live_async.tvis", 1);
  write_prefix(path, w, end_of_step(w, 0));
  tvis::viewer::AppOptions options;
  options.live_recheck_seconds = 0;
  tvis::test::HeadlessApp h(options);
  auto source = std::make_shared<tvis::test::DeferredSource>(tvis::test::file_source_for(path));
  h.app().open(source);
  for (int i = 0; i < 20 && !h.state()["run"].is_object(); ++i) {
    source->pump();
    h.frame();
  }
  const int opened_steps = run_of(h)["steps"];
  tvis::test::write_file(path, w.bytes);  // the rest at once, footer included (same file)
  h.frame(2);                              // the recheck waits in the source: the frames go on
  CHECK(run_of(h)["complete"] == false);
  for (int i = 0; i < 20 && run_of(h)["complete"] != true; ++i) {
    source->pump();
    h.frame();
  }
  json run = run_of(h);
  CHECK(run["complete"] == true);
  CHECK(run["steps"] == w.steps);
  CHECK(int(run["steps"]) > opened_steps);
}

TEST_CASE("a live run whose file shrinks keeps what it showed and says so", "[live]") {
  const Written w = complete_run("live_shrink_full.tvis", 4);
  const std::string path = tvis::test::write_synthetic_run("live_shrink.tvis", 1);
  const uint64_t two = end_of_step(w, 1);
  write_prefix(path, w, two);
  tvis::viewer::AppOptions options;
  options.live_recheck_seconds = 0;
  tvis::test::HeadlessApp h(options);
  h.app().open(tvis::test::file_source_for(path));
  h.frame(3);
  const int steps = run_of(h)["steps"];
  REQUIRE(::truncate(path.c_str(), off_t(two / 2)) == 0);
  h.frame(3);
  json s = h.state();
  REQUIRE(s["run"].is_object());
  CHECK(s["run"]["live"] == false);
  CHECK(s["run"]["steps"] == steps);
  REQUIRE(s["errors"].size() >= 1);
  CHECK(s["errors"][0].get<std::string>().find("shrank from " + std::to_string(two)) != std::string::npos);
}
