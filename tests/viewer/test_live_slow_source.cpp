// A live run over a slow synchronous source (tvis-view HOST:PATH: every read
// of remote/store_source.cpp is an agent round trip over ssh). The source
// here answers only when the test lets it (or after kGiveUp): a recheck must
// not hold a frame while it waits, and its growth must show only once the
// whole answer (the new size and the new chunk headers or footer) is in.
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "headless_app.h"
#include "tvis/format/container.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/run_summary.h"
#include "tvis/viewer_model/run_model.h"

namespace fmt = tvis::format;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// How long a held answer waits before it is given anyway: a frame that
// waits for the source takes this long (the check fails instead of hanging).
constexpr auto kGiveUp = std::chrono::milliseconds(1500);
// A frame that does not wait for the source is far quicker than kGiveUp.
constexpr double kQuickFrameMs = 500;

// A synchronous source (answers before read()/recheck_size() return, as the
// store source does) whose size answers and reads can each be held back.
// Safe from several threads, as the store source is.
class GatedSource : public fmt::ByteSource {
 public:
  explicit GatedSource(std::shared_ptr<fmt::ByteSource> inner) : inner_(std::move(inner)) {}
  uint64_t size() const override { return inner_->size(); }
  std::string name() const override { return inner_->name(); }
  void read(uint64_t offset, uint64_t length, fmt::ReadDone done) override {
    wait_while(&hold_reads_);
    inner_->read(offset, length, std::move(done));
  }
  void recheck_size(fmt::SizeDone done) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++size_asked_;
    }
    wait_while(&hold_size_);
    inner_->recheck_size(std::move(done));
  }
  void hold(bool size, bool reads) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      hold_size_ = size;
      hold_reads_ = reads;
    }
    cv_.notify_all();
  }
  int size_asked() {
    std::lock_guard<std::mutex> lock(mu_);
    return size_asked_;
  }

 private:
  void wait_while(const bool* held) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, kGiveUp, [&] { return !*held; });
  }
  std::shared_ptr<fmt::ByteSource> inner_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool hold_size_ = false, hold_reads_ = false;
  int size_asked_ = 0;
};

struct Written {
  std::string bytes;
  std::vector<fmt::ChunkEntry> chunks;
  int64_t steps = 0;
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
  return w;
}

uint64_t end_of_step(const Written& w, int step) {
  uint64_t end = fmt::kFileHeaderSize;
  for (const auto& c : w.chunks) {
    if (c.info.step_last > step) break;
    end = c.offset + fmt::kChunkHeaderSize + c.compressed_size;
  }
  return end;
}

void append(const std::string& path, const Written& w, uint64_t from, uint64_t to) {
  FILE* f = std::fopen(path.c_str(), "ab");
  REQUIRE(f);
  REQUIRE(std::fwrite(w.bytes.data() + from, 1, to - from, f) == to - from);
  std::fclose(f);
}

double frame_ms(tvis::test::HeadlessApp& h) {
  const auto t0 = Clock::now();
  h.frame();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

TEST_CASE("a live run over a slow synchronous source: frames go on while a recheck waits; it grows once answered",
          "[live]") {
  const Written w = complete_run("live_slow_full.tvis", 5);
  const std::string path = tvis::test::write_synthetic_run("live_slow.tvis", 1);
  tvis::test::write_file(path, w.bytes.substr(0, end_of_step(w, 1)));

  tvis::viewer::AppOptions options;
  options.live_recheck_seconds = 0;      // every frame
  options.decode_in_background = true;   // as an interactive tvis-view window
  tvis::test::HeadlessApp h(options);
  auto source = std::make_shared<GatedSource>(tvis::test::file_source_for(path));
  h.app().open(source);
  for (int i = 0; i < 50 && !(h.state()["run"].is_object() && h.state()["run"]["steps"] > 0); ++i) {
    h.frame();
    h.app().wait_for_decodes();
  }
  json run = h.state()["run"];
  REQUIRE(run.is_object());
  const int opened_steps = run["steps"];
  const uint64_t opened_bytes = run["file_bytes"];
  REQUIRE(opened_steps > 0);
  REQUIRE(opened_steps < w.steps);

  // The writer appends; the source's answers are held back (a slow agent).
  append(path, w, end_of_step(w, 1), end_of_step(w, 3));
  source->hold(true, true);
  const int asked_before = source->size_asked();
  double slowest = 0;
  for (int i = 0; i < 4 || (source->size_asked() == asked_before && i < 200); ++i) {  // the worker asks soon
    slowest = std::max(slowest, frame_ms(h));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(slowest < kQuickFrameMs);              // no frame waited for the recheck
  CHECK(source->size_asked() > asked_before);  // yet one was asked for
  run = h.state()["run"];
  CHECK(run["rechecking"] == true);
  CHECK(run["recheck_frames"].get<int>() >= 3);
  CHECK(run["growths"] == 0);
  CHECK(run["steps"] == opened_steps);
  CHECK(run["file_bytes"] == opened_bytes);

  // The size answers, the new chunk headers do not yet: nothing shows.
  source->hold(false, true);
  for (int i = 0; i < 4; ++i) slowest = std::max(slowest, frame_ms(h));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  h.frame();
  run = h.state()["run"];
  CHECK(slowest < kQuickFrameMs);
  CHECK(run["growths"] == 0);
  CHECK(run["steps"] == opened_steps);
  CHECK(run["file_bytes"] == opened_bytes);

  // The rest of the answer: the growth is picked up on a later frame.
  source->hold(false, false);
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (h.state()["run"]["growths"] == 0 && Clock::now() < until) {
    slowest = std::max(slowest, frame_ms(h));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  run = h.state()["run"];
  CHECK(slowest < kQuickFrameMs);
  CHECK(run["growths"] == 1);
  CHECK(int(run["steps"]) > opened_steps);
  CHECK(run["file_bytes"] == end_of_step(w, 3));
  CHECK(run["live"] == true);
  CHECK(h.state()["errors"].empty());

  // The writer finishes: the footer arrives the same way and the run ends complete.
  append(path, w, end_of_step(w, 3), w.bytes.size());
  const auto until_complete = Clock::now() + std::chrono::seconds(10);
  while (h.state()["run"]["complete"] != true && Clock::now() < until_complete) {
    slowest = std::max(slowest, frame_ms(h));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  run = h.state()["run"];
  CHECK(run["complete"] == true);
  CHECK(run["live"] == false);
  CHECK(run["steps"] == w.steps);
  CHECK(run["file_bytes"] == w.bytes.size());
  CHECK(slowest < kQuickFrameMs);
}

TEST_CASE("RunModel: a recheck over a slow synchronous source returns at once and lands through take_growth",
          "[live]") {
  const Written w = complete_run("live_slow_model_full.tvis", 4);
  const std::string path = tvis::test::write_synthetic_run("live_slow_model.tvis", 1);
  tvis::test::write_file(path, w.bytes.substr(0, end_of_step(w, 0)));
  auto source = std::make_shared<GatedSource>(tvis::test::file_source_for(path));
  tvis::viewer::RunModel model(64ull << 20);
  model.set_decode_in_background(true);
  model.open(source);
  REQUIRE(model.status() == tvis::viewer::RunStatus::Open);
  REQUIRE(model.live());
  REQUIRE(model.cache().decodes_in_background());
  const uint64_t bytes_before = model.file_size();
  const int steps_before = model.step_count();

  append(path, w, end_of_step(w, 0), w.bytes.size());  // the rest at once, footer included
  source->hold(true, true);
  const auto t0 = Clock::now();
  model.recheck_growth();
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  CHECK(ms < kQuickFrameMs);
  CHECK(model.recheck_in_flight());
  model.take_growth();  // nothing answered yet
  CHECK(model.recheck_in_flight());
  CHECK(model.file_size() == bytes_before);
  CHECK(model.growths() == 0);

  source->hold(false, false);
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (model.recheck_in_flight() && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    model.take_growth();
  }
  CHECK_FALSE(model.recheck_in_flight());
  CHECK(model.growths() == 1);
  CHECK(model.complete());
  CHECK_FALSE(model.live());
  CHECK(model.file_size() == w.bytes.size());
  CHECK(model.step_count() > steps_before);
  CHECK(model.live_problem().empty());
}

TEST_CASE("RunModel: closing a run whose recheck crosses a slow link waits for one read, not the whole scan",
          "[live]") {
  const Written w = complete_run("live_slow_close_full.tvis", 4);
  const std::string path = tvis::test::write_synthetic_run("live_slow_close.tvis", 1);
  tvis::test::write_file(path, w.bytes.substr(0, end_of_step(w, 0)));
  auto source = std::make_shared<GatedSource>(tvis::test::file_source_for(path));
  tvis::viewer::RunModel model(64ull << 20);
  model.set_decode_in_background(true);
  model.open(source);
  REQUIRE(model.live());
  model.cache().wait_for_decodes();
  size_t added = 0;  // chunks the recheck must scan, one read each
  for (const auto& c : w.chunks)
    if (c.offset >= end_of_step(w, 0) && c.offset < end_of_step(w, 3)) ++added;
  REQUIRE(added >= 4);
  append(path, w, end_of_step(w, 0), end_of_step(w, 3));  // no footer: the recheck scans

  source->hold(false, true);  // the size answers; every header read waits kGiveUp
  const int asked = source->size_asked();
  model.recheck_growth();
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (source->size_asked() == asked && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(source->size_asked() > asked);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the scan's first read is under way
  const auto t0 = Clock::now();
  model.clear();
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  // One held read at most (kGiveUp), where the whole scan holds one per new chunk.
  CHECK(ms < std::chrono::duration<double, std::milli>(kGiveUp).count() * 2);
  CHECK(model.status() == tvis::viewer::RunStatus::Empty);
}
