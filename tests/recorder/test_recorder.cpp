// Recorder (recorder.h), driven from C++ as the module drives it, and read
// back through the format reader: event nesting and phases, tensor dedup
// within a step, optimizer updates, gradients, sources and phase timings.
// LibTorch first: its glog defines CHECK, which Catch's must replace.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#undef CHECK

#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tvis/format/byte_source.h"
#include "tvis/format/run_reader.h"
#include "tvis/recorder/recorder.h"

using namespace tvis;
using namespace tvis::recorder;

namespace {

constexpr int kModuleCall = static_cast<int>(schema::EventKind::ModuleCall);
constexpr int kInput = static_cast<int>(schema::TensorRole::Input);
constexpr int kOutput = static_cast<int>(schema::TensorRole::Output);
constexpr int kForward = static_cast<int>(schema::Phase::Forward);

/// A run file path unique to this process and test; removed at scope end.
struct TempRun {
  std::string path;
  explicit TempRun(const std::string& name)
      : path("/tmp/tvis_test_recorder_" + name + "_" + std::to_string(::getpid()) + ".tvis") {}
  ~TempRun() { std::remove(path.c_str()); }
};

RecorderOptions options(const std::string& path, const std::string& project = "/nonexistent_project") {
  RecorderOptions o;
  o.path = path;
  o.config.max_elems = 1000;
  o.config.samples = 2;
  o.config.project_dir = project;
  return o;
}

/// Everything a finished run holds that these tests look at.
struct RunContents {
  std::map<uint64_t, std::unique_ptr<schema::EventT>> events;
  std::map<uint64_t, std::unique_ptr<schema::TensorRecordT>> tensors;
  std::vector<std::unique_ptr<schema::SourceFileT>> sources;
  std::unique_ptr<schema::RunMetaT> meta;  // the last one
};

RunContents read_run(const std::string& path) {
  RunContents run;
  auto src = format::open_file_source(path);
  REQUIRE(src.ok());
  auto r = format::RunReader::open_sync(src.value());
  REQUIRE(r.ok());
  for (uint32_t i = 0; i < r.value()->chunks().size(); ++i) {
    auto c = r.value()->read_chunk_sync(i);
    REQUIRE(c.ok());
    const auto* root = c.value()->root();
    // An empty vector may be absent: each is checked before use.
    if (const auto* eb = root->body_as_EventBatch(); eb && eb->events())
      for (const auto* e : *eb->events()) run.events[e->id()].reset(e->UnPack());
    if (const auto* tb = root->body_as_TensorBatch(); tb && tb->tensors())
      for (const auto* t : *tb->tensors()) run.tensors[t->id()].reset(t->UnPack());
    if (const auto* sf = root->body_as_SourceFiles(); sf && sf->files())
      for (const auto* f : *sf->files()) run.sources.emplace_back(f->UnPack());
    if (const auto* m = root->body_as_RunMeta()) run.meta.reset(m->UnPack());
  }
  return run;
}

}  // namespace

TEST_CASE("events nest under the innermost open event; end() closes those opened after it", "[recorder]") {
  TempRun tmp("nesting");
  {
    Recorder rec(options(tmp.path));
    rec.set_step(1);
    const uint64_t outer = rec.begin(kModuleCall, "model", "Net", 0, 0, 0, 0);
    const uint64_t inner = rec.begin(kModuleCall, "model.fc", "Linear", 0, 0, 0, 0);
    const uint64_t deeper = rec.begin(kModuleCall, "model.fc.act", "ReLU", 0, 0, 0, 0);
    rec.end(inner);  // ends `deeper` too
    const uint64_t sibling = rec.begin(kModuleCall, "model.head", "Linear", 0, 0, 0, 0);
    rec.end(sibling);
    rec.end(outer);
    rec.end(outer);  // no longer open: a no-op
    rec.finalize(schema::RunMetaT{});
    (void)deeper;
  }
  RunContents run = read_run(tmp.path);
  REQUIRE(run.events.size() == 4);
  CHECK(run.events[0]->parent == -1);
  CHECK(run.events[1]->parent == 0);
  CHECK(run.events[2]->parent == 1);
  CHECK(run.events[3]->parent == 0);  // after `inner` ended
  CHECK(run.events[2]->t_end_ns == run.events[1]->t_end_ns);
  for (auto& [id, e] : run.events) CHECK(e->step == 1);
}

TEST_CASE("phases: marker events, the phase on each event, timings in RunMeta", "[recorder]") {
  TempRun tmp("phases");
  {
    Recorder rec(options(tmp.path));
    rec.set_phase(kForward);
    rec.set_phase(kForward);  // unchanged: no markers
    const uint64_t call = rec.begin(kModuleCall, "model", "Net", 0, 0, 0, 0);
    rec.end(call);
    rec.finalize(schema::RunMetaT{});  // back to phase none
  }
  RunContents run = read_run(tmp.path);
  REQUIRE(run.events.size() == 3);
  CHECK(run.events[0]->kind == schema::EventKind::PhaseBegin);
  CHECK(run.events[1]->phase == schema::Phase::Forward);
  CHECK(run.events[2]->kind == schema::EventKind::PhaseEnd);
  REQUIRE(run.meta);
  REQUIRE(run.meta->phase_timings.size() == 1);
  CHECK(run.meta->phase_timings[0]->phase == schema::Phase::Forward);
  CHECK(run.meta->phase_timings[0]->ns >= 0);
}

/// Sleeps `ms` milliseconds (wall time that is someone's: the user's or, bracketed, tvis's).
static void spend_ms(int ms) { ::usleep(static_cast<useconds_t>(ms) * 1000); }

TEST_CASE("own time: bracketed work is tvis's, per event and per phase; nested brackets count once", "[recorder]") {
  TempRun tmp("own_time");
  {
    Recorder rec(options(tmp.path));
    rec.set_phase(kForward);
    const uint64_t outer = rec.begin(kModuleCall, "model", "Net", 0, 0, 0, 0);
    spend_ms(20);  // the user's
    rec.own_enter();
    rec.own_enter();  // nested: counted once
    spend_ms(30);     // tvis's, inside `outer` and before `inner`
    rec.own_exit();
    const uint64_t inner = rec.begin(kModuleCall, "model.fc", "Linear", 0, 0, 0, 0);
    spend_ms(10);     // still tvis's: the bracket is open
    rec.own_exit();
    rec.own_exit();   // unmatched: ignored
    spend_ms(10);     // the user's
    rec.end(inner);
    rec.end(outer);
    rec.finalize(schema::RunMetaT{});
  }
  RunContents run = read_run(tmp.path);
  const schema::EventT* outer = nullptr;
  const schema::EventT* inner = nullptr;
  for (auto& [id, e] : run.events) {
    if (e->name == "model") outer = e.get();
    if (e->name == "model.fc") inner = e.get();
  }
  REQUIRE(outer);
  REQUIRE(inner);
  const auto ms = [](int64_t ns) { return static_cast<double>(ns) / 1e6; };
  // outer: 70 ms wall of which 40 ms tvis's; inner: 20 ms wall, 10 ms tvis's
  CHECK(ms(outer->own_ns) >= 40);
  CHECK(ms(outer->own_ns) < 40 + 15);
  CHECK(ms(outer->t_end_ns - outer->t_begin_ns - outer->own_ns) >= 30);
  CHECK(ms(inner->own_ns) >= 10);
  CHECK(ms(inner->own_ns) < 10 + 8);
  CHECK(ms(inner->t_end_ns - inner->t_begin_ns - inner->own_ns) >= 10);
  // own before: none before outer; outer's first 30 ms of tvis's work before inner
  CHECK(outer->own_before_ns < 1000000);
  CHECK(ms(inner->own_before_ns - outer->own_before_ns) >= 30);
  CHECK(inner->own_before_ns + inner->own_ns <= outer->own_before_ns + outer->own_ns);
  REQUIRE(run.meta);
  REQUIRE(run.meta->phase_timings.size() == 1);
  const auto& forward = *run.meta->phase_timings[0];
  CHECK(forward.own_ns >= outer->own_ns);
  CHECK(forward.own_ns <= forward.ns);
  CHECK(ms(forward.ns - forward.own_ns) >= 30);  // the user's 20 + 10 ms
}

TEST_CASE("an unchanged input/output tensor is recorded once per step", "[recorder]") {
  TempRun tmp("dedup");
  Recorder rec(options(tmp.path));
  const uint64_t ev = rec.begin(kModuleCall, "model", "Net", 0, 0, 0, 0);
  at::Tensor t = at::arange(12, at::kFloat).reshape({3, 4});
  const int64_t first = rec.tensor(t, kOutput, ev, "", 0);
  CHECK(rec.tensor(t, kInput, ev, "", 0) == first);  // the same tensor, unchanged
  t.add_(1);                                          // a new version
  const int64_t changed = rec.tensor(t, kInput, ev, "", 0);
  CHECK(changed != first);
  rec.set_step(1);  // a new step records again
  CHECK(rec.tensor(t, kInput, ev, "", 0) != changed);
  const int64_t weight = rec.tensor(t, static_cast<int>(schema::TensorRole::Weight), ev, "w", 0);
  CHECK(rec.tensor(t, static_cast<int>(schema::TensorRole::Weight), ev, "w", 0) != weight);  // no dedup
  rec.end(ev);
  CHECK(rec.stats().tensors == 5);  // first, changed, next step, two weights
}

TEST_CASE("tensors listed on an event become its inputs and outputs", "[recorder]") {
  TempRun tmp("lists");
  {
    Recorder rec(options(tmp.path));
    const uint64_t ev = rec.begin(kModuleCall, "model", "Net", 0, 0, 0, 0);
    const int64_t a = rec.tensor(at::ones({2}), kInput, ev, "", 0);
    const int64_t b = rec.tensor(at::zeros({2}), kOutput, ev, "", 0);
    rec.list_on_event(ev, kInput, {a});
    rec.list_on_event(ev, kOutput, {b});
    rec.list_on_event(ev, static_cast<int>(schema::TensorRole::Weight), {a});  // not listed
    rec.end(ev);
    rec.finalize(schema::RunMetaT{});
  }
  RunContents run = read_run(tmp.path);
  CHECK(run.events[0]->inputs == std::vector<uint64_t>{0});
  CHECK(run.events[0]->outputs == std::vector<uint64_t>{1});
  CHECK(run.tensors[0]->event == 0);
  CHECK(run.tensors[1]->role == schema::TensorRole::Output);
}

TEST_CASE("params_before/after record weight, grad and the exact update", "[recorder]") {
  TempRun tmp("params");
  {
    Recorder rec(options(tmp.path));
    const uint64_t ev = rec.begin(static_cast<int>(schema::EventKind::OptimizerStep), "step", "", 0, 0, 0, 0);
    at::Tensor w = at::full({4}, 1.0f);
    const auto ids = rec.params_before(static_cast<int64_t>(ev), {"w"}, {w});
    REQUIRE(ids.size() == 1);
    CHECK(ids[0].second == -1);  // no .grad
    w.sub_(0.25f);
    const auto updates = rec.params_after(static_cast<int64_t>(ev), {w});
    REQUIRE(updates.size() == 1);
    CHECK_THROWS_AS(rec.params_after(static_cast<int64_t>(ev), {w}), std::invalid_argument);  // nothing pending
    CHECK_THROWS_AS(rec.params_before(static_cast<int64_t>(ev), {"a", "b"}, {w}), std::invalid_argument);
    rec.end(ev);
    rec.finalize(schema::RunMetaT{});
  }
  RunContents run = read_run(tmp.path);
  const auto& update = run.tensors[1];
  CHECK(update->role == schema::TensorRole::Update);
  CHECK(update->name == "w");
  CHECK(update->stats->min == Approx(-0.25));
  CHECK(update->stats->max == Approx(-0.25));
  CHECK(update->kept == schema::ValuesKept::None);  // Δw = after - before: its values are not stored twice
  const auto& after = run.tensors[2];
  CHECK(after->role == schema::TensorRole::Weight);
  CHECK(after->step == 1);  // the weight at the boundary: the next step's weight before
  CHECK(after->stats->min == Approx(0.75));
}

TEST_CASE("weights are stored once per step boundary, and again when they changed", "[recorder]") {
  TempRun tmp("boundary");
  int64_t after0 = -1, before1 = -1, before2 = -1;
  {
    Recorder rec(options(tmp.path));
    const int kStep = static_cast<int>(schema::EventKind::OptimizerStep);
    at::Tensor w = at::full({4}, 1.0f);
    const auto step = [&](float delta) {
      const uint64_t ev = rec.begin(kStep, "step", "", 0, 0, 0, 0);
      const int64_t before = rec.params_before(static_cast<int64_t>(ev), {"w"}, {w})[0].first;
      w.sub_(delta);
      const int64_t after = rec.params_after(static_cast<int64_t>(ev), {w})[0].second;
      rec.end(ev);
      rec.set_step(rec.step() + 1);
      return std::make_pair(before, after);
    };
    after0 = step(0.25f).second;
    before1 = step(0.5f).first;
    // A write that bumps no version counter of `w` (through another tensor sharing its storage, as `.data` does).
    at::Tensor alias = at::from_blob(w.data_ptr(), {4}, w.options());
    alias.fill_(7.0f);
    before2 = step(0.5f).first;
    rec.finalize(schema::RunMetaT{});
  }
  CHECK(before1 == after0);  // unchanged since the last update: the same record
  RunContents run = read_run(tmp.path);
  REQUIRE(before2 >= 0);
  CHECK(before2 != after0);
  CHECK(run.tensors[static_cast<size_t>(before2)]->stats->min == Approx(7.0));  // recorded anew, as it is
}

TEST_CASE("a large model's weights before wait in a file: the same Δw statistics and weights", "[recorder]") {
  // Two recorders over the same training: one keeps the weights before each
  // step in memory, the other spills them (threshold 0). A 600,000-element
  // float32 parameter spills (2^19 elements or more); a small one never does.
  const auto record = [](const std::string& path, uint64_t spill, bool nan_in_update) {
    RecorderOptions o = options(path);
    uint64_t spilled = 0;
    o.spill_snapshot_bytes = spill;
    Recorder rec(o);
    at::Tensor big = at::linspace(-3.0, 5.0, 600000).to(at::kFloat);
    at::Tensor small = at::full({10}, 2.0f);
    for (int step = 0; step < 2; ++step) {
      const uint64_t ev = rec.begin(static_cast<int>(schema::EventKind::OptimizerStep), "step", "", 0, 0, 0, 0);
      rec.params_before(static_cast<int64_t>(ev), {"big", "small"}, {big, small});
      big.mul_(0.999f).add_(at::sin(big) * 1e-3f);  // an update whose rounding differs element by element
      small.sub_(0.5f);
      if (nan_in_update && step == 1) big[12345] = NAN;
      rec.params_after(static_cast<int64_t>(ev), {big, small});
      rec.end(ev);
      rec.set_step(step + 1);
    }
    spilled = rec.finalize(schema::RunMetaT{}).peak_spilled_bytes;
    return spilled;
  };
  for (bool nan : {false, true}) {
    TempRun memory(nan ? "mem_nan" : "mem"), spilled(nan ? "spill_nan" : "spill");
    CHECK(record(memory.path, UINT64_MAX, nan) == 0);
    CHECK(record(spilled.path, 0, nan) == 600000 * sizeof(float));  // the big parameter alone
    RunContents a = read_run(memory.path), b = read_run(spilled.path);
    REQUIRE(a.tensors.size() == b.tensors.size());
    int updates = 0;
    for (const auto& [id, ta] : a.tensors) {
      const auto& tb = b.tensors.at(id);
      CHECK(ta->role == tb->role);
      CHECK(ta->name == tb->name);
      CHECK(ta->shape == tb->shape);
      CHECK(ta->kept == tb->kept);
      const auto& sa = *ta->stats;
      const auto& sb = *tb->stats;
      CHECK(sa.count == sb.count);
      CHECK(sa.nan_count == sb.nan_count);
      CHECK(sa.min == sb.min);  // exact: minimum and maximum do not depend on order
      CHECK(sa.max == sb.max);
      // Sums: the same pieces merged in the same order as the in-memory path with several threads.
      if (at::get_num_threads() > 1 || ta->role != schema::TensorRole::Update) {
        CHECK(sa.mean == sb.mean);
        CHECK(sa.l2 == sb.l2);
        CHECK(sa.histogram == sb.histogram);
      } else {
        CHECK(sa.mean == Approx(sb.mean).epsilon(1e-12));
        CHECK(sa.l2 == Approx(sb.l2).epsilon(1e-12));
      }
      updates += ta->role == schema::TensorRole::Update && ta->name == "big";
    }
    CHECK(updates == 2);
  }
}

TEST_CASE("Δw summarised in the subtraction's pass has the statistics of the update kept whole", "[recorder]") {
  // Default recorders summarise a float32 CPU parameter's update while
  // subtracting (one pass); with update_values the update is materialised by
  // torch's sub and captured as any tensor. Both sizes: below and above the
  // parallel threshold (2^19 values); an update with NaN, Inf and -0.
  const auto record = [](const std::string& path, bool keep_values) {
    RecorderOptions o = options(path);
    o.update_values = keep_values;
    o.spill_snapshot_bytes = UINT64_MAX;
    Recorder rec(o);
    at::Tensor big = at::linspace(-3.0, 5.0, 700001).to(at::kFloat);
    at::Tensor small = at::linspace(-1.0, 1.0, 3001).to(at::kFloat);
    for (int step = 0; step < 2; ++step) {
      const uint64_t ev = rec.begin(static_cast<int>(schema::EventKind::OptimizerStep), "step", "", 0, 0, 0, 0);
      rec.params_before(static_cast<int64_t>(ev), {"big", "small"}, {big, small});
      big.mul_(0.999f).add_(at::sin(big) * 1e-3f);
      small.mul_(1.0001f);
      if (step == 1) {
        small[7] = NAN;
        small[8] = INFINITY;
        big[3] = -big[3];
      }
      rec.params_after(static_cast<int64_t>(ev), {big, small});
      rec.end(ev);
      rec.set_step(step + 1);
    }
    rec.finalize(schema::RunMetaT{});
  };
  TempRun fused("fused"), whole("whole");
  record(fused.path, false);
  record(whole.path, true);
  RunContents a = read_run(fused.path), b = read_run(whole.path);
  REQUIRE(a.tensors.size() == b.tensors.size());
  int updates = 0;
  for (const auto& [id, ta] : a.tensors) {
    const auto& tb = b.tensors.at(id);
    if (ta->role != schema::TensorRole::Update) continue;
    ++updates;
    CHECK(ta->kept == schema::ValuesKept::None);
    CHECK(tb->kept != schema::ValuesKept::None);
    const auto& sa = *ta->stats;
    const auto& sb = *tb->stats;
    CHECK(sa.count == sb.count);
    CHECK(sa.finite_count == sb.finite_count);
    CHECK(sa.nan_count == sb.nan_count);
    CHECK(sa.inf_count == sb.inf_count);
    CHECK(sa.min == sb.min);
    CHECK(sa.max == sb.max);
    CHECK(sa.mean == sb.mean);  // the same pieces summed in the same order
    CHECK(sa.std == sb.std);
    CHECK(sa.l2 == sb.l2);
    CHECK(sa.mean_abs == sb.mean_abs);
    CHECK(sa.histogram == sb.histogram);
  }
  CHECK(updates == 4);
}

TEST_CASE("a spill file that cannot be written: the weights stay in memory, the error is named", "[recorder]") {
  // A file-size limit of 1 MB (SIGXFSZ ignored: the write fails with EFBIG)
  // lets the small run file be written but not the 2.4 MB weight.
  TempRun memory("limit_mem"), limited("limit_spill");
  const auto record = [](const std::string& path, uint64_t spill) {
    RecorderOptions o = options(path);
    o.spill_snapshot_bytes = spill;
    Recorder rec(o);
    at::Tensor big = at::linspace(-3.0, 5.0, 600000).to(at::kFloat);
    for (int step = 0; step < 2; ++step) {
      const uint64_t ev = rec.begin(static_cast<int>(schema::EventKind::OptimizerStep), "step", "", 0, 0, 0, 0);
      rec.params_before(static_cast<int64_t>(ev), {"big"}, {big});
      big.mul_(0.999f);
      rec.params_after(static_cast<int64_t>(ev), {big});
      rec.end(ev);
      rec.set_step(step + 1);
    }
    return rec.finalize(schema::RunMetaT{});
  };
  record(memory.path, UINT64_MAX);
  struct rlimit old_limit {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  struct rlimit small = old_limit;
  small.rlim_cur = 1 << 20;
  auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  RecorderStats st;
  try {
    st = record(limited.path, 0);
  } catch (...) {
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    throw;
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  CHECK(st.spill_error.find("cannot write") != std::string::npos);
  CHECK(st.spill_lost_updates == 0);
  RunContents a = read_run(memory.path), b = read_run(limited.path);
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (const auto& [id, ta] : a.tensors) {
    CHECK(ta->stats->min == b.tensors.at(id)->stats->min);
    CHECK(ta->stats->max == b.tensors.at(id)->stats->max);
    CHECK(ta->stats->l2 == b.tensors.at(id)->stats->l2);
  }
}

TEST_CASE("gradients add to grad_norm; one for a written event counts as late", "[recorder]") {
  TempRun tmp("grads");
  {
    Recorder rec(options(tmp.path));
    const uint64_t ev = rec.begin(kModuleCall, "model", "Net", 0, 0, 0, 0);
    rec.on_grad(ev, at::full({4}, 1.0f));  // l2 = 2
    rec.on_grad(ev, at::full({4}, 1.0f) * 0);  // another tensor: l2 = 0
    rec.set_paused(true);
    rec.on_grad(ev, at::full({4}, 5.0f));  // paused: nothing
    rec.set_paused(false);
    rec.end(ev);
    rec.flush();  // the event is written
    rec.on_grad(ev, at::full({4}, 1.0f));
    CHECK(rec.stats().late_grads == 1);
    rec.finalize(schema::RunMetaT{});
  }
  RunContents run = read_run(tmp.path);
  CHECK(run.events[0]->grad_outputs.size() == 2);
  CHECK(run.events[0]->grad_norm == Approx(2.0));
}

TEST_CASE("per-sample gradient norms equal torch's double reduction, small and large", "[recorder]") {
  // Rows of at most 2^16 values in all are summed in a loop of the recorder's
  // own (eight lanes), larger ones by torch: both within rounding of torch's.
  TempRun tmp("row_norms");
  const std::vector<std::vector<int64_t>> shapes = {{6, 5}, {6, 3, 7, 7}, {6, 1000}, {6, 64, 32, 32}, {6, 9}};
  std::vector<at::Tensor> grads;
  for (size_t i = 0; i < shapes.size(); ++i) {
    at::Tensor g = at::randn(shapes[i]) * double(i + 1);
    if (i == 4) g[1][3] = NAN;  // a non-finite row stays non-finite
    grads.push_back(g);
  }
  {
    Recorder rec(options(tmp.path));  // 2 followed samples
    rec.set_batch_rows(6);
    for (size_t i = 0; i < grads.size(); ++i) {
      const uint64_t ev = rec.begin(kModuleCall, "layer" + std::to_string(i), "Layer", 0, 0, 0, 0);
      rec.on_grad(ev, grads[i]);
      rec.end(ev);
    }
    rec.finalize(schema::RunMetaT{});
  }
  RunContents run = read_run(tmp.path);
  REQUIRE(run.events.size() == grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    const auto& got = run.events[i]->sample_grad_norms;
    REQUIRE(got.size() == 2);
    const at::Tensor want = grads[i].narrow(0, 0, 2).reshape({2, -1}).to(at::kDouble).pow(2).sum(1).sqrt();
    for (int r = 0; r < 2; ++r) {
      const double w = want[r].item<double>();
      if (std::isnan(w)) {
        CHECK(std::isnan(got[r]));
      } else {
        CHECK(got[r] == Approx(w).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("file ids are dense; only project files carry their text", "[recorder]") {
  char dir_tmpl[] = "/tmp/tvis_test_recorder_projXXXXXX";
  const std::string project = mkdtemp(dir_tmpl);
  const std::string script = project + "/train.py";
  std::ofstream(script) << "print('hi')\n";
  TempRun tmp("sources");
  {
    Recorder rec(options(tmp.path, project));
    CHECK(rec.file_id(script) == 0);
    CHECK(rec.file_id("/usr/lib/python3/torch/nn.py") == 1);
    CHECK(rec.file_id(script) == 0);
    rec.flush();
    CHECK(rec.file_id("/elsewhere/late.py") == 2);
    rec.finalize(schema::RunMetaT{});
  }
  RunContents run = read_run(tmp.path);
  REQUIRE(run.sources.size() == 3);
  CHECK(run.sources[0]->display_path == "train.py");
  CHECK(run.sources[0]->text == "print('hi')\n");
  CHECK(run.sources[1]->text.empty());
  CHECK(run.sources[2]->path == "/elsewhere/late.py");
  std::remove(script.c_str());
  rmdir(project.c_str());
}

TEST_CASE("finalize twice writes once and returns the stats", "[recorder]") {
  TempRun tmp("finalize");
  Recorder rec(options(tmp.path));
  rec.begin(kModuleCall, "open_at_the_end", "", 0, 0, 0, 0);
  const RecorderStats a = rec.finalize(schema::RunMetaT{});
  const RecorderStats b = rec.finalize(schema::RunMetaT{});
  CHECK(a.file_bytes == b.file_bytes);
  CHECK(a.events == 1);
  RunContents run = read_run(tmp.path);
  CHECK(run.events.size() == 1);
}

TEST_CASE("a run file that cannot be created is an exception", "[recorder]") {
  CHECK_THROWS_AS(Recorder(options("/nonexistent_dir/x/run.tvis")), std::runtime_error);
}
