// Explore on a headless ImGui context: the call tree (collapse, search, keys),
// the inspector's tensors, and each panel driven directly over synthetic runs
// and over a hand-built run whose Events chunks overlap as a real recorder's do.
#include <imgui.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "app_state.h"
#include "headless_app.h"
#include "pages/explore_state.h"
#include "scratch_dir.h"
#include "synthetic_run.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/chunk_pack.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/run_writer.h"
#include "tvis/format/tensor_data_chunk.h"
#include "tvis/schema/recording_generated.h"
#include "tvis/viewer_model/tensor_index.h"

using nlohmann::json;
using tvis::test::HeadlessApp;
namespace sc = tvis::schema;
namespace fmt = tvis::format;
namespace vw = tvis::viewer;

namespace {

std::shared_ptr<fmt::ByteSource> file_source(const std::string& path) {
  auto s = fmt::open_file_source(path);
  REQUIRE(s.ok());
  return s.value();
}

// Every TensorRecord of the file, read straight from it (not through the viewer).
std::vector<sc::TensorRecordT> all_tensors(const std::string& path) {
  auto reader = fmt::RunReader::open_sync(file_source(path));
  REQUIRE(reader.ok());
  std::vector<sc::TensorRecordT> out;
  for (const auto& c : reader.value()->chunks()) {
    if (c.info.kind != static_cast<uint16_t>(fmt::ChunkKind::Tensors)) continue;
    auto chunk = reader.value()->read_chunk_sync(c.ordinal);
    REQUIRE(chunk.ok());
    for (const auto* t : *chunk.value()->root()->body_as_TensorBatch()->tensors()) {
      sc::TensorRecordT rec;
      t->UnPackTo(&rec);
      out.push_back(std::move(rec));
    }
  }
  return out;
}

std::vector<sc::EventT> all_events(const std::string& path) {
  auto reader = fmt::RunReader::open_sync(file_source(path));
  REQUIRE(reader.ok());
  std::vector<sc::EventT> out;
  for (const auto& c : reader.value()->chunks()) {
    if (c.info.kind != static_cast<uint16_t>(fmt::ChunkKind::Events)) continue;
    auto chunk = reader.value()->read_chunk_sync(c.ordinal);
    REQUIRE(chunk.ok());
    for (const auto* e : *chunk.value()->root()->body_as_EventBatch()->events()) {
      sc::EventT ev;
      e->UnPackTo(&ev);
      out.push_back(std::move(ev));
    }
  }
  std::sort(out.begin(), out.end(), [](const sc::EventT& a, const sc::EventT& b) { return a.id < b.id; });
  return out;
}

// Runs `draw` inside one window of `n` frames on the harness's context.
template <typename F>
void panel_frames(int n, F&& draw) {
  for (int i = 0; i < n; ++i) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(1200, 800));
    ImGui::Begin("panel");
    draw();
    ImGui::End();
    ImGui::Render();
  }
}

fmt::Bytes pack(sc::BodyUnion body) { return fmt::pack_chunk(std::move(body)); }

std::unique_ptr<sc::EventT> make_event(uint64_t id, int64_t parent, const std::string& name) {
  auto e = std::make_unique<sc::EventT>();
  e->id = id;
  e->parent = parent;
  e->kind = sc::EventKind::ModuleCall;
  e->step = 0;
  e->phase = sc::Phase::Forward;
  e->name = name;
  e->t_begin_ns = static_cast<int64_t>(id) * 100;
  e->t_end_ns = e->t_begin_ns + 50;
  return e;
}

void append_events(fmt::RunWriter& w, std::vector<std::unique_ptr<sc::EventT>> events) {
  fmt::ChunkInfo info;
  info.kind = static_cast<uint16_t>(fmt::ChunkKind::Events);
  info.step_first = info.step_last = 0;
  info.event_first = events.front()->id;
  info.event_last = events.back()->id;
  sc::EventBatchT batch;
  batch.events = std::move(events);
  sc::BodyUnion u;
  u.Set(std::move(batch));
  w.append(info, pack(std::move(u)));
}

// A run written the way the recorder writes one: an event goes out when it
// ends, so the outer call (0) and a long call (2) land in the last chunk,
// whose id range [0, 7] spans the first chunk's [1, 6].
std::string write_overlapping_run() {
  const std::string path =
      tvis::test::scratch_path("explore_overlap.tvis");
  auto w = fmt::RunWriter::create(path);
  REQUIRE(w.ok());
  std::vector<std::unique_ptr<sc::EventT>> a;
  a.push_back(make_event(1, 0, "first"));
  a.push_back(make_event(3, 2, "inner.a"));
  a.push_back(make_event(4, 2, "inner.b"));
  a.push_back(make_event(5, 2, "inner.c"));
  a.push_back(make_event(6, 0, "after"));
  append_events(*w.value(), std::move(a));
  std::vector<std::unique_ptr<sc::EventT>> b;
  b.push_back(make_event(0, -1, "outer"));
  b.back()->phase = sc::Phase::None;  // the first forward call is then "first" (1), in the other chunk
  b.push_back(make_event(2, 0, "long"));
  b.push_back(make_event(7, 0, "last"));
  append_events(*w.value(), std::move(b));
  REQUIRE(w.value()->finalize().ok());
  return path;
}

}  // namespace

TEST_CASE("events are found across overlapping Events chunks (real recorder layout)", "[viewer][explore]") {
  const std::string path = write_overlapping_run();
  HeadlessApp h;
  h.app().open(file_source(path));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(3);
  REQUIRE(h.state()["run"]["events"] == 8);
  const char* names[] = {"outer", "first", "long", "inner.a", "inner.b", "inner.c", "after", "last"};
  for (uint64_t id = 0; id < 8; ++id) {
    INFO("event " << id);
    REQUIRE(h.click_event_row(id));
    CHECK(h.state()["selection"]["name"] == names[id]);
  }
  // Collapsing "long" (double-click) hides its three children; right arrow skips them.
  REQUIRE(h.click_event_row(2));
  REQUIRE(h.click_event_row(2));  // second click within the double-click time
  h.frame(2);
  float r[4];
  CHECK_FALSE(h.app().event_row_rect(3, r));
  CHECK_FALSE(h.app().event_row_rect(5, r));
  CHECK(h.app().event_row_rect(6, r));
  h.press_key(ImGuiKey_RightArrow);
  h.frame();
  CHECK(h.state()["selection"]["event"] == 6);
  h.press_key(ImGuiKey_LeftArrow);
  h.frame();
  CHECK(h.state()["selection"]["event"] == 2);
}

// A run whose two outer calls (0: `<module>`, 1: `main`) were never written,
// as when the script is killed while they are open: their written children
// name them as parents.
std::string write_run_missing_parents() {
  const std::string path =
      tvis::test::scratch_path("explore_missing.tvis");
  auto w = fmt::RunWriter::create(path);
  REQUIRE(w.ok());
  std::vector<std::unique_ptr<sc::EventT>> a;
  a.push_back(make_event(2, 1, "model"));
  a.push_back(make_event(3, 2, "model.conv"));
  a.push_back(make_event(4, 2, "model.fc"));
  a.push_back(make_event(5, 1, "loss"));
  append_events(*w.value(), std::move(a));
  REQUIRE(w.value()->finalize().ok());
  return path;
}

TEST_CASE("calls never written are final 'not recorded' rows with their children below them", "[viewer][explore]") {
  const std::string path = write_run_missing_parents();
  HeadlessApp h;
  vw::AppState s(vw::AppOptions{});
  s.model.open(file_source(path));
  vw::ExploreState x;
  panel_frames(3, [&] { vw::draw_call_tree(s, x); });
  REQUIRE(s.model.event_count() == 6);
  CHECK(s.model.event_state(0) == vw::EventState::NotRecorded);
  CHECK(s.model.event_state(1) == vw::EventState::NotRecorded);
  CHECK(s.model.event_state(2) == vw::EventState::Present);
  CHECK(s.model.event_state(99) == vw::EventState::NotRecorded);  // beyond every chunk: cannot arrive
  for (uint64_t id = 0; id < 6; ++id) {
    INFO("row " << id);
    REQUIRE(s.drawn.events.count(id) == 1);
    CHECK(s.drawn.events[id].loaded);  // drawn final, not "loading ..."
  }
  CHECK(s.model.tree().depth(1) == 0);  // an unwritten call is a root
  CHECK(s.model.tree().depth(2) == 1);  // its children indent below it
  CHECK(s.model.tree().depth(3) == 2);
  // Collapsing the unwritten `main` (1) hides everything it holds (2..5).
  x.tree.collapsed.emplace(1, std::nullopt);
  s.drawn.events.clear();
  panel_frames(2, [&] { vw::draw_call_tree(s, x); });
  REQUIRE(x.tree.collapsed.at(1) == std::optional<uint64_t>(5));
  CHECK(s.drawn.events.count(0) == 1);
  CHECK(s.drawn.events.count(1) == 1);
  CHECK(s.drawn.events.count(2) == 0);
  // The app reports the selection as not recorded.
  h.app().open(file_source(path));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(3);
  REQUIRE(h.click_event_row(1));
  const json sel = h.state()["selection"];
  CHECK(sel["event"] == 1);
  CHECK(sel["not_recorded"] == "call not recorded");  // a complete run: no "ended before it returned"
  CHECK_FALSE(sel.contains("name"));
}

TEST_CASE("collapsing the outermost call leaves one row; expanding brings all back", "[viewer][explore]") {
  const std::string path = tvis::test::write_synthetic_run("collapse.tvis", 2);
  HeadlessApp h;
  h.app().open(file_source(path));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(3);
  float r[4];
  REQUIRE(h.app().event_row_rect(1, r));
  REQUIRE(h.click_event_row(0));
  REQUIRE(h.click_event_row(0));  // double-click: collapse "train"
  h.frame(3);
  CHECK(h.app().event_row_rect(0, r));
  CHECK_FALSE(h.app().event_row_rect(1, r));
  CHECK_FALSE(h.app().event_row_rect(10, r));
  REQUIRE(h.click_event_row(0));
  REQUIRE(h.click_event_row(0));  // and back
  h.frame(2);
  CHECK(h.app().event_row_rect(1, r));
  CHECK(h.app().event_row_rect(10, r));
}

TEST_CASE("selecting a module call shows its output tensor in the inspector", "[viewer][explore]") {
  const std::string path = tvis::test::write_synthetic_run("inspect.tvis", 2);
  const auto events = all_events(path);
  const auto tensors = all_tensors(path);
  // The first module call and its recorded output.
  auto call = std::find_if(events.begin(), events.end(),
                           [](const sc::EventT& e) { return e.kind == sc::EventKind::ModuleCall; });
  REQUIRE(call != events.end());
  auto out = std::find_if(tensors.begin(), tensors.end(), [&](const sc::TensorRecordT& t) {
    return t.event == static_cast<int64_t>(call->id) && t.role == sc::TensorRole::Output;
  });
  REQUIRE(out != tensors.end());

  HeadlessApp h;
  h.app().open(file_source(path));
  h.show_page("Explore");  // Replay is the default page; this tests Explore
  h.frame(3);
  REQUIRE(h.click_event_row(0));
  for (uint64_t i = 0; i < call->id; ++i) h.press_key(ImGuiKey_RightArrow);
  h.frame(3);  // tensor records, then values, load on later frames
  json sel = h.state()["selection"];
  CHECK(sel["event"] == call->id);
  CHECK(sel["name"] == call->name);
  CHECK(sel["kind"] == "module");
  CHECK(sel["phase"] == "forward");
  REQUIRE(sel.contains("tensor"));
  CHECK(sel["tensor"] == out->id);
  // Stepping to a phase marker (no tensors) drops the tensor from the selection.
  h.press_key(ImGuiKey_LeftArrow);
  h.frame(2);
  CHECK_FALSE(h.state()["selection"].contains("tensor"));
}

TEST_CASE("the tensor view decodes exactly the recorded values and slices them", "[viewer][explore]") {
  const std::string path = tvis::test::write_synthetic_run("values.tvis", 1);
  const auto tensors = all_tensors(path);
  auto batch = std::find_if(tensors.begin(), tensors.end(),
                            [](const sc::TensorRecordT& t) { return t.role == sc::TensorRole::Batch; });
  REQUIRE(batch != tensors.end());
  REQUIRE(batch->shape == std::vector<int64_t>{4, 3, 8, 8});

  HeadlessApp h;
  vw::AppState s(vw::AppOptions{});
  s.model.open(file_source(path));
  REQUIRE(s.model.status() == vw::RunStatus::Open);
  vw::TensorViewState view;  // a shared panel: drawn from the model and the selection, no page state
  vw::PanelContext panel{s.model, s.selection, s.options, {}};
  bool done = false;
  vw::TensorRef ref;
  for (int i = 0; i < 4 && !ref; ++i) ref = s.model.tensors().by_id(s.model, batch->id, batch->step, &done);
  REQUIRE(ref);
  panel_frames(3, [&] { vw::draw_tensor_view(panel, view, ref); });
  REQUIRE(view.error.empty());
  REQUIRE(view.values.shape == std::vector<int64_t>{4, 3, 8, 8});
  REQUIRE(view.values.values.size() == 4u * 3 * 8 * 8);
  // The decoded values reproduce the recorded statistics exactly (float32 -> double).
  double lo = INFINITY, hi = -INFINITY;
  for (double v : view.values.values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  CHECK(lo == batch->stats->min);
  CHECK(hi == batch->stats->max);
  // Default slice: the last two axes (8 x 8) at index 0 of the others.
  CHECK(view.slice.rows == 8);
  CHECK(view.slice.cols == 8);
  CHECK(view.slice.at(2, 5) == view.values.values[2 * 8 + 5]);
  // Pick sample 1, channel 2: the slice follows.
  view.spec.index = {1, 2, 0, 0};
  view.slice_dirty = true;
  panel_frames(1, [&] { vw::draw_tensor_view(panel, view, ref); });
  CHECK(view.slice.at(3, 4) == view.values.values[((1 * 3 + 2) * 8 + 3) * 8 + 4]);
}

TEST_CASE("decode_values refuses records that point outside their chunk", "[viewer][explore][errors]") {
  std::vector<float> data(16, 1.5f);
  fmt::Bytes raw = fmt::make_tensor_data_chunk(reinterpret_cast<const uint8_t*>(data.data()), data.size() * 4);
  fmt::ChunkEntry entry;
  entry.info.kind = static_cast<uint16_t>(fmt::ChunkKind::TensorData);
  fmt::DecodedChunk chunk(entry, raw);
  REQUIRE(chunk.root());
  auto record = [](uint64_t offset, uint64_t size, std::vector<int64_t> shape) {
    sc::TensorRecordT t;
    t.id = 9;
    t.dtype = sc::DType::Float32;
    t.kept = sc::ValuesKept::Full;
    t.shape = std::move(shape);
    t.data_offset = offset;
    t.data_size = size;
    auto fbb = std::make_shared<flatbuffers::FlatBufferBuilder>();
    fbb->Finish(sc::TensorRecord::Pack(*fbb, &t));
    return fbb;
  };
  auto read = [&](const std::shared_ptr<flatbuffers::FlatBufferBuilder>& fbb, vw::TensorValues* out) {
    return vw::decode_values(*flatbuffers::GetRoot<sc::TensorRecord>(fbb->GetBufferPointer()), chunk, out);
  };
  vw::TensorValues v;
  CHECK(read(record(0, 64, {4, 4}), &v).empty());
  CHECK(v.values.size() == 16);
  CHECK(v.values[15] == 1.5);
  vw::TensorValues bad;
  CHECK(read(record(32, 64, {4, 4}), &bad).find("outside chunk") != std::string::npos);
  CHECK(read(record(UINT64_MAX - 8, 64, {4, 4}), &bad).find("outside chunk") != std::string::npos);
  CHECK(read(record(0, 60, {4, 4}), &bad).find("value bytes") != std::string::npos);
  CHECK(read(record(0, 64, {-4, -4}), &bad).find("negative") != std::string::npos);
  CHECK(read(record(0, 64, {1ll << 40, 1ll << 40}), &bad).find("too large") != std::string::npos);
  CHECK(bad.values.empty());
}

TEST_CASE("layers table: every module call of the step, with shapes, stats and sorting", "[viewer][explore]") {
  const std::string path = tvis::test::write_synthetic_run("layers.tvis", 2, 40);
  const auto events = all_events(path);
  const auto tensors = all_tensors(path);
  size_t module_calls = 0;
  for (const auto& e : events)
    if (e.step == 1 && e.kind == sc::EventKind::ModuleCall) ++module_calls;
  REQUIRE(module_calls > 10);

  HeadlessApp h;
  vw::AppState s(vw::AppOptions{});
  s.model.open(file_source(path));
  s.selection.step = 1;
  vw::ExploreState x;
  panel_frames(4, [&] { vw::draw_layers_table(s, x); });
  REQUIRE(x.layers.complete);
  REQUIRE(x.layers.rows.size() == module_calls);
  // Each row's statistics are those of the call's recorded output.
  for (const auto& row : x.layers.rows) {
    auto out = std::find_if(tensors.begin(), tensors.end(), [&](const sc::TensorRecordT& t) {
      return t.event == static_cast<int64_t>(row.event) && t.role == sc::TensorRole::Output;
    });
    REQUIRE(out != tensors.end());
    CHECK(row.mean == out->stats->mean);
    CHECK(row.stddev == out->stats->std);
  }
  // conv1 and fc have parameters in the optimizer record: 16 x 27 each.
  auto conv1 = std::find_if(x.layers.rows.begin(), x.layers.rows.end(), [](const vw::LayerRow& r) { return r.path == "conv1"; });
  REQUIRE(conv1 != x.layers.rows.end());
  CHECK(conv1->params == 16 * 27);
  CHECK(conv1->cls == "Conv2d");
  // Sorting by activation std, largest first.
  x.layers.sort_column = 5;
  x.layers.sort_descending = true;
  panel_frames(1, [&] { vw::draw_layers_table(s, x); });  // complete: rows are kept
  x.layers.step = -1;
  x.layers.complete = false;
  panel_frames(1, [&] { vw::draw_layers_table(s, x); });
  REQUIRE(x.layers.rows.size() == module_calls);
  for (size_t i = 1; i < x.layers.rows.size(); ++i) CHECK(x.layers.rows[i - 1].stddev >= x.layers.rows[i].stddev);
}

TEST_CASE("source view counts calls per line and highlights the selected call's line", "[viewer][explore]") {
  const std::string path = tvis::test::write_synthetic_run("source.tvis", 3);
  const auto events = all_events(path);
  std::map<uint32_t, uint32_t> expected;  // line -> calls (file 0)
  for (const auto& e : events)
    if (e.call_line > 0 && e.kind != sc::EventKind::PhaseBegin && e.kind != sc::EventKind::PhaseEnd)
      ++expected[e.call_line];
  HeadlessApp h;
  vw::AppState s(vw::AppOptions{});
  s.model.open(file_source(path));
  vw::ExploreState x;
  auto fwd = std::find_if(events.begin(), events.end(), [](const sc::EventT& e) { return e.name == "Net.forward"; });
  REQUIRE(fwd != events.end());
  s.selection.event = fwd->id;
  panel_frames(4, [&] { vw::draw_source_view(s, x); });
  REQUIRE(x.source.counting_done);
  for (const auto& [line, n] : expected) {
    INFO("line " << line);
    CHECK(x.source.line_calls[(uint64_t{0} << 32) | line] == n);
  }
  CHECK(x.source.highlight_line == static_cast<int>(fwd->call_line));
  CHECK(x.source.file == fwd->call_file);
}

TEST_CASE("timeline, step view and samples draw the step; a timeline click selects a call", "[viewer][explore]") {
  const std::string path = tvis::test::write_synthetic_run("timeline.tvis", 2);
  HeadlessApp h;
  vw::AppState s(vw::AppOptions{});
  s.model.open(file_source(path));
  vw::ExploreState x;
  panel_frames(3, [&] { vw::draw_step_view(s, x); });
  CHECK(ImGui::GetDrawData()->TotalVtxCount > 500);
  panel_frames(3, [&] { vw::draw_samples_panel(s, x); });
  CHECK(ImGui::GetDrawData()->TotalVtxCount > 500);
  panel_frames(3, [&] { vw::draw_timeline(s, x); });
  REQUIRE(x.timeline.fitted);
  CHECK(x.timeline.t1 > x.timeline.t0);
  CHECK(x.timeline.view0 == x.timeline.t0);
  // Zoom in with the wheel over the middle of the plot: the window shrinks.
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2(700, 120);
  io.MouseWheel = 2;
  panel_frames(1, [&] { vw::draw_timeline(s, x); });
  io.MouseWheel = 0;
  CHECK(x.timeline.view1 - x.timeline.view0 < x.timeline.t1 - x.timeline.t0);
  // Click down the plot's middle column until a bar is hit: that call is selected.
  for (float y = 20; y < 500 && !s.selection.event; y += 5) {
    io.MousePos = ImVec2(700, y);
    panel_frames(1, [&] { vw::draw_timeline(s, x); });
    io.MouseDown[0] = true;
    panel_frames(1, [&] { vw::draw_timeline(s, x); });
    io.MouseDown[0] = false;
    panel_frames(1, [&] { vw::draw_timeline(s, x); });
  }
  io.MousePos = ImVec2(-1, -1);
  REQUIRE(s.selection.event);
  const sc::Event* e = s.model.event(*s.selection.event);
  REQUIRE(e);
  CHECK(e->step() == 0);
}

TEST_CASE("search lists every call whose name or class matches, case-insensitively", "[viewer][explore]") {
  const std::string path = tvis::test::write_synthetic_run("search.tvis", 3, 60);
  const auto events = all_events(path);
  std::vector<uint64_t> expected;
  for (const auto& e : events) {
    std::string hay = e.name + "\n" + e.class_name;
    std::transform(hay.begin(), hay.end(), hay.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (hay.find("conv") != std::string::npos) expected.push_back(e.id);
  }
  REQUIRE(expected.size() >= 6);
  HeadlessApp h;
  vw::AppState s(vw::AppOptions{});
  s.model.open(file_source(path));
  vw::ExploreState x;
  std::snprintf(x.tree.query, sizeof x.tree.query, "CoNv");
  panel_frames(3, [&] { vw::draw_call_tree(s, x); });
  REQUIRE(x.tree.scan_done);
  CHECK(x.tree.matches == expected);
  // Only matching rows are drawn.
  CHECK(s.drawn.events.count(expected[0]) == 1);
  CHECK(s.drawn.events.count(0) == 0);
  // Clearing the query brings the whole tree back.
  x.tree.query[0] = 0;
  s.drawn.events.clear();
  panel_frames(1, [&] { vw::draw_call_tree(s, x); });
  CHECK(x.tree.matches.empty());
  CHECK(s.drawn.events.count(0) == 1);
}

// Real recordings (tvis run): the committed golden run by default, or the
// run.tvis files (':'-separated) in TVIS_TEST_REAL_RUNS (the recorder tests
// point it at runs they just recorded, a killed one included).
TEST_CASE("over real recordings: every call is reachable by keys and shows its recorded tensors", "[viewer][explore][real]") {
  const char* env = std::getenv("TVIS_TEST_REAL_RUNS");
  const std::string runs = env && *env ? env : TVIS_TEST_GOLDEN_RUN;
  std::stringstream list(runs);
  std::string path;
  while (std::getline(list, path, ':')) {
    INFO("run " << path);
    const auto events = all_events(path);
    const auto tensors = all_tensors(path);
    REQUIRE(!events.empty());
    HeadlessApp h;
    h.app().open(file_source(path));
    h.show_page("Explore");  // Replay is the default page; this tests Explore
    h.frame(3);
    REQUIRE(h.state()["errors"] == json::array());
    {  // a recovered run counts the steps whose optimizer record is on disk (as `tvis inspect`)
      auto reader = fmt::RunReader::open_sync(file_source(path));
      REQUIRE(reader.ok());
      if (!reader.value()->complete()) {
        std::set<int32_t> steps;
        for (const auto& c : reader.value()->chunks())
          if (c.info.kind == static_cast<uint16_t>(fmt::ChunkKind::OptimizerStep)) steps.insert(c.info.step_last);
        CHECK(h.state()["run"]["steps"] == steps.size());
      }
    }
    REQUIRE(h.click_event_row(0));
    // Ids are dense over calls begun; a killed run never wrote the calls still
    // open (`<module>`, `main`): their rows and selection say "not recorded".
    std::map<uint64_t, const sc::EventT*> by_id;
    for (const auto& e : events) by_id[e.id] = &e;
    const uint64_t n = std::min<uint64_t>(by_id.rbegin()->first + 1, 300);
    for (uint64_t id = 0; id < n; ++id) {
      h.frame(2);  // tensors of the call load
      json sel = h.state()["selection"];
      REQUIRE(sel["event"] == id);
      auto found = by_id.find(id);
      if (found == by_id.end()) {
        INFO("id " << id << " is in no Events chunk; selection " << sel.dump());
        CHECK(sel.contains("not_recorded"));
        CHECK_FALSE(sel.contains("name"));
        CHECK(h.app().event_row_loaded(id));  // a final row, not a loading placeholder
        h.press_key(ImGuiKey_RightArrow);
        continue;
      }
      const sc::EventT& e = *found->second;
      CHECK(sel["name"] == e.name);
      // The inspector shows one of the call's tensors when it has any: records
      // made for the call, or tensors its inputs / outputs / grad outputs name.
      bool has = false, shown_ok = false;
      auto consider = [&](uint64_t id) {
        has = true;
        if (sel.contains("tensor") && sel["tensor"] == id) shown_ok = true;
      };
      for (const auto& t : tensors)
        if (t.event == static_cast<int64_t>(e.id)) consider(t.id);
      for (const auto* list : {&e.inputs, &e.outputs, &e.grad_outputs})
        for (uint64_t id : *list)
          if (std::any_of(tensors.begin(), tensors.end(), [&](const sc::TensorRecordT& t) { return t.id == id; }))
            consider(id);
      INFO("event " << e.id << " " << e.name << " step " << e.step << " selection " << sel.dump());
      if (has) CHECK(shown_ok);
      else CHECK_FALSE(sel.contains("tensor"));
      h.press_key(ImGuiKey_RightArrow);
    }
    CHECK(h.state()["errors"] == json::array());
    // The run model's file list (the union of every SourceFiles chunk: a run
    // writes one per flush that saw new files) names every recorded call site.
    vw::AppState fs(vw::AppOptions{});
    fs.model.open(file_source(path));
    for (int i = 0; i < 20 && !fs.model.source_files().ready(); ++i) fs.model.source_files().name(0);
    REQUIRE(fs.model.source_files().ready());
    for (const auto& e : events)
      if (e.call_line > 0) {
        INFO("event " << e.id << " " << e.name << " file " << e.call_file);
        CHECK_FALSE(fs.model.source_files().name(e.call_file).empty());
      }
  }
}

TEST_CASE("a jump to a call inside a collapsed subtree expands it", "[viewer][explore]") {
  const std::string path = write_overlapping_run();
  HeadlessApp h;
  vw::AppState s(vw::AppOptions{});
  s.model.open(file_source(path));
  vw::ExploreState x;
  x.tree.collapsed.emplace(2, std::nullopt);  // "long": its end is found by scanning
  panel_frames(2, [&] { vw::draw_call_tree(s, x); });
  REQUIRE(x.tree.collapsed.at(2) == std::optional<uint64_t>(5));
  CHECK(s.drawn.events.count(4) == 0);
  s.selection.select_event(4);  // e.g. from the timeline
  s.drawn.events.clear();
  panel_frames(2, [&] { vw::draw_call_tree(s, x); });
  CHECK(x.tree.collapsed.count(2) == 0);
  CHECK(s.drawn.events.count(4) == 1);
  CHECK(*s.selection.event == 4);
}

TEST_CASE("a navigator jump finds the first call of a step across overlapping chunks", "[viewer][explore]") {
  const std::string path = write_overlapping_run();
  HeadlessApp h;
  vw::AppState s(vw::AppOptions{});
  s.model.open(file_source(path));
  bool exhausted = false;
  std::optional<uint64_t> id;
  for (int i = 0; i < 4 && !id && !exhausted; ++i) id = s.model.first_event_of(0, sc::Phase::Forward, &exhausted);
  REQUIRE(id);
  CHECK(*id == 1);  // not "long" (2), the first forward call of the chunk whose range starts at 0
  for (int i = 0; i < 4; ++i) id = s.model.first_event_of(1, sc::Phase::None, &exhausted);
  CHECK_FALSE(id);
  CHECK(exhausted);
}
