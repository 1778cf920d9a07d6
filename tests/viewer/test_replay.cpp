// Replay on a headless ImGui context, over the committed golden recording
// (and any run.tvis in TVIS_TEST_REPLAY_RUNS, ':'-separated): it is the
// default page; stepping with keys moves through layer -> call -> phase ->
// batch in the recorded order; backward visits the module calls in reverse;
// a link lands where it says. The truth is read straight from the file.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "headless_app.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include "tvis/schema/recording_generated.h"
#include "tvis/viewer_model/layer_maps.h"
#include "tvis/viewer_model/run_model.h"
#include "tvis/viewer_model/step_stops.h"

using nlohmann::json;
using tvis::test::HeadlessApp;
namespace schema = tvis::schema;

namespace {

json command(HeadlessApp& h, const json& cmd) { return json::parse(h.app().command(cmd.dump())); }

struct FileEvent {
  uint64_t id;
  int64_t parent;
  schema::EventKind kind;
  schema::Phase phase;
  int step;
  std::string name;
};

// Every event of the run, read without the viewer.
std::map<uint64_t, FileEvent> file_events(const std::string& path) {
  auto reader = tvis::format::RunReader::open_sync(tvis::test::file_source_for(path));
  REQUIRE(reader.ok());
  std::map<uint64_t, FileEvent> out;
  for (const auto& c : reader.value()->chunks()) {
    if (c.info.kind != static_cast<uint16_t>(tvis::format::ChunkKind::Events)) continue;
    auto chunk = reader.value()->read_chunk_sync(c.ordinal);
    REQUIRE(chunk.ok());
    for (const auto* e : *chunk.value()->root()->body_as_EventBatch()->events())
      out[e->id()] = {e->id(), e->parent(), e->kind(), e->phase(), e->step(), e->name() ? e->name()->str() : ""};
  }
  return out;
}

// Forward module calls of `step` that hold no other module call, in call order.
std::vector<uint64_t> forward_leaves(const std::map<uint64_t, FileEvent>& events, int step) {
  std::set<uint64_t> inner;  // module calls with a module call below them
  for (const auto& [id, e] : events) {
    if (e.kind != schema::EventKind::ModuleCall) continue;
    for (int64_t p = e.parent; p >= 0;) {
      auto it = events.find(static_cast<uint64_t>(p));
      if (it == events.end()) break;
      if (it->second.kind == schema::EventKind::ModuleCall) inner.insert(it->first);
      p = it->second.parent;
    }
  }
  std::vector<uint64_t> out;
  for (const auto& [id, e] : events)
    if (e.step == step && e.phase == schema::Phase::Forward && e.kind == schema::EventKind::ModuleCall &&
        !inner.count(id))
      out.push_back(id);
  return out;
}

int phase_rank(const std::string& p) {
  static const char* kOrder[] = {"data", "forward", "loss", "backward", "optimizer"};
  for (int i = 0; i < 5; ++i)
    if (p == kOrder[i]) return i;
  return -1;
}

std::vector<std::string> runs_under_test() {
  std::vector<std::string> out = {TVIS_TEST_GOLDEN_RUN};
  if (const char* env = std::getenv("TVIS_TEST_REPLAY_RUNS")) {
    std::stringstream ss(env);
    for (std::string p; std::getline(ss, p, ':');)
      if (!p.empty()) out.push_back(p);
  }
  return out;
}

void open(HeadlessApp& h, const std::string& path) {
  h.app().open(tvis::test::file_source_for(path));
  h.frame(4);
}

json view(HeadlessApp& h) { return h.state()["view"]; }

}  // namespace

TEST_CASE("a training run opens on Replay, at its first stop", "[viewer][replay]") {
  HeadlessApp h;
  open(h, TVIS_TEST_GOLDEN_RUN);
  const json s = h.state();
  CHECK(s["page"] == "Replay");
  CHECK(s["pages"].front() == "Replay");
  const json v = s["view"];
  REQUIRE(v.is_object());
  CHECK(v["step"] == 0);
  CHECK(v["playing"] == false);
  CHECK(v["step_size"] == "layer");
  CHECK(v["stop"] >= 0);  // the first stop of the step size (layer: the first layer or the batch's fetch)
  CHECK(v["event"].is_number());
  CHECK(phase_rank(v["phase"]) >= 0);
  CHECK(s["errors"] == json::array());
}

TEST_CASE("stepping by call visits every stop in recorded order, backward in reverse", "[viewer][replay]") {
  for (const std::string& path : runs_under_test()) {
    INFO(path);
    const auto events = file_events(path);
    HeadlessApp h;
    open(h, path);
    REQUIRE(command(h, {{"step_size", "call"}}) == true);
    for (int i = 0; i < 100 && view(h)["stop"] != 0; ++i) command(h, {{"key", "left"}});  // the step's first stop
    REQUIRE(view(h)["stop"] == 0);
    std::vector<json> visited = {view(h)};
    for (int i = 0; i < 5000; ++i) {
      REQUIRE(command(h, {{"key", "right"}}) == true);
      h.frame();
      const json v = view(h);
      if (v["step"] != 0) break;
      visited.push_back(v);
    }
    // Phases never go back; within forward, call ids rise (call order).
    int rank = -1;
    uint64_t last_forward = 0;
    std::vector<uint64_t> fwd_modules, bwd_modules;
    for (const json& v : visited) {
      REQUIRE(v["event"].is_number());
      const int r = phase_rank(v["phase"]);
      CHECK(r >= rank);
      rank = r;
      const FileEvent& e = events.at(v["event"].get<uint64_t>());
      CHECK(e.step == 0);
      if (v["phase"] == "forward") {
        CHECK(e.id >= last_forward);
        last_forward = e.id;
        if (e.kind == schema::EventKind::ModuleCall) fwd_modules.push_back(e.id);
      }
      if (v["phase"] == "backward" && e.kind == schema::EventKind::ModuleCall) {
        CHECK(e.phase == schema::Phase::Forward);  // the forward call whose gradient it shows
        bwd_modules.push_back(e.id);
      }
    }
    // Every forward module call is visited once in forward and once in backward.
    std::vector<uint64_t> all_fwd;
    for (const auto& [id, e] : events)
      if (e.step == 0 && e.phase == schema::Phase::Forward && e.kind == schema::EventKind::ModuleCall)
        all_fwd.push_back(id);
    CHECK(fwd_modules == all_fwd);
    std::vector<uint64_t> sorted_bwd = bwd_modules;
    std::sort(sorted_bwd.begin(), sorted_bwd.end());
    CHECK(sorted_bwd == all_fwd);
    // The last layer's gradient comes first, the first layer's last.
    const std::vector<uint64_t> leaves = forward_leaves(events, 0);
    std::vector<uint64_t> bwd_leaves;
    for (uint64_t id : bwd_modules)
      if (std::find(leaves.begin(), leaves.end(), id) != leaves.end()) bwd_leaves.push_back(id);
    CHECK(bwd_leaves == std::vector<uint64_t>(leaves.rbegin(), leaves.rend()));
    // Left walks the same stops back.
    for (size_t k = visited.size(); k > 0; --k) {  // the last right went into step 1
      command(h, {{"key", "left"}});
      h.frame();
    }
    CHECK(view(h)["stop"] == visited.front()["stop"]);
    CHECK(view(h)["step"] == 0);
  }
}

TEST_CASE("step sizes: layer visits leaf layers, phase the phases, batch the next step", "[viewer][replay]") {
  for (const std::string& path : runs_under_test()) {
    INFO(path);
    const auto events = file_events(path);
    HeadlessApp h;
    open(h, path);
    // layer: forward stops are exactly the leaf module calls.
    std::vector<uint64_t> fwd;
    std::vector<std::string> phases;
    for (int i = 0; i < 2000 && view(h)["step"] == 0; ++i) {
      const json v = view(h);
      if (v["phase"] == "forward") {
        CHECK(events.at(v["event"].get<uint64_t>()).kind == schema::EventKind::ModuleCall);
        fwd.push_back(v["event"].get<uint64_t>());
      }
      command(h, {{"key", "right"}});
      h.frame();
    }
    CHECK(fwd == forward_leaves(events, 0));
    // phase: one stop per phase present, in order, then the next step.
    command(h, {{"link", {{"step", 0}, {"phase", "data"}}}});
    h.frame(3);
    REQUIRE(command(h, {{"step_size", "phase"}}) == true);
    std::vector<std::string> seen = {view(h)["phase"]};
    for (int i = 0; i < 8; ++i) {
      command(h, {{"key", "right"}});
      h.frame();
      if (view(h)["step"] != 0) break;
      seen.push_back(view(h)["phase"]);
    }
    std::set<std::string> present;
    for (const auto& [id, e] : events)
      if (e.step == 0 && e.kind != schema::EventKind::PhaseBegin && e.kind != schema::EventKind::PhaseEnd) {
        static const char* kNames[] = {"", "data", "forward", "loss", "backward", "optimizer"};
        const int p = static_cast<int>(e.phase);
        if (p >= 1 && p <= 5) present.insert(kNames[p]);
      }
    CHECK(seen.size() == present.size());
    for (size_t k = 1; k < seen.size(); ++k) CHECK(phase_rank(seen[k]) > phase_rank(seen[k - 1]));
    CHECK(view(h)["step"] == 1);
    // batch: the next step, same phase and module.
    command(h, {{"link", {{"step", 0}, {"phase", "forward"}}}});
    h.frame(3);
    const json before = view(h);
    REQUIRE(command(h, {{"step_size", "batch"}}) == true);
    command(h, {{"key", "right"}});
    h.frame(3);
    const json after = view(h);
    CHECK(after["step"] == 1);
    CHECK(after["phase"] == before["phase"]);
    CHECK(after["module"] == before["module"]);
    // up / down jump phases.
    command(h, {{"key", "down"}});
    h.frame();
    CHECK(phase_rank(view(h)["phase"]) > phase_rank(after["phase"]));
  }
}

TEST_CASE("a link lands on its step, phase and module; Space plays and pauses", "[viewer][replay]") {
  const auto events = file_events(TVIS_TEST_GOLDEN_RUN);
  const std::vector<uint64_t> leaves = forward_leaves(events, 1);
  REQUIRE(!leaves.empty());
  const std::string module = events.at(leaves.front()).name;
  HeadlessApp h;
  h.app().command(json{{"link", {{"page", "Replay"}, {"step", "1"}, {"phase", "backward"}, {"module", module}}}}.dump());
  open(h, TVIS_TEST_GOLDEN_RUN);
  json v = view(h);
  CHECK(v["step"] == 1);
  CHECK(v["phase"] == "backward");
  CHECK(v["module"] == module);
  CHECK(v["event"] == leaves.front());
  REQUIRE(v["layer"].is_object());
  CHECK(v["layer"]["of"] == "gradient");
  CHECK(v["layer"]["module"] == module);
  // Space plays: the position moves on by itself (12 stops a second at 60
  // frames a second: a move every 5 frames); Space again pauses.
  command(h, {{"link", {{"step", 0}, {"phase", "forward"}}}});
  h.frame(2);
  v = view(h);
  REQUIRE(command(h, {{"speed", 12}}) == true);
  REQUIRE(command(h, {{"key", "space"}}) == true);
  CHECK(view(h)["playing"] == true);
  h.frame(6);
  const json moved = view(h);
  CHECK((moved["stop"] != v["stop"] || moved["step"] != v["step"]));
  command(h, {{"key", "space"}});
  CHECK(view(h)["playing"] == false);
  // Unknown values are refused.
  CHECK(command(h, {{"phase", "evaluation"}}) == false);
  CHECK(command(h, {{"step_size", "epoch"}}) == false);
}

TEST_CASE("build_step_plan: containers before their parts forward, reverse post-order backward", "[viewer][replay]") {
  // model(A(a1, a2), b): ids 0..4 in call order.
  flatbuffers::FlatBufferBuilder fbb;
  auto ev = [&](uint64_t id, int64_t parent, const char* name) {
    return schema::CreateEventDirect(fbb, id, parent, schema::EventKind::ModuleCall, 0, schema::Phase::Forward, name);
  };
  std::vector<flatbuffers::Offset<schema::Event>> list = {ev(0, -1, "model"), ev(1, 0, "A"), ev(2, 1, "A.a1"),
                                                          ev(3, 1, "A.a2"), ev(4, 0, "b")};
  fbb.Finish(schema::CreateEventBatchDirect(fbb, &list));
  const auto* batch = flatbuffers::GetRoot<schema::EventBatch>(fbb.GetBufferPointer());
  std::vector<const schema::Event*> events(batch->events()->begin(), batch->events()->end());
  std::reverse(events.begin(), events.end());  // any order in
  const tvis::viewer::StepPlan plan = tvis::viewer::build_step_plan(0, events);
  std::vector<std::string> names;
  for (const auto& st : plan.stops) names.push_back(std::string(tvis::viewer::phase_label(st.phase)) + ":" + st.name);
  CHECK(names == std::vector<std::string>{"forward:model", "forward:A", "forward:A.a1", "forward:A.a2", "forward:b",
                                          "backward:model", "backward:b", "backward:A", "backward:A.a2",
                                          "backward:A.a1"});
  std::vector<std::string> layers;
  for (const auto& st : plan.stops)
    if (st.layer) layers.push_back(st.name);
  CHECK(layers == std::vector<std::string>{"A.a1", "A.a2", "b", "b", "A.a2", "A.a1"});
  CHECK(plan.first_of(tvis::schema::Phase::Backward) == 5);
}

TEST_CASE("layer_maps: mean |x| over channels per location, neurons strongest first", "[viewer][replay]") {
  tvis::viewer::TensorValues tv;
  tv.shape = {2, 3, 2, 2};  // B, C, H, W
  for (int i = 0; i < 24; ++i) tv.values.push_back((i % 5) - 2.0);
  const tvis::viewer::LayerMaps m = tvis::viewer::layer_maps(tv, {2, 3, 2, 2}, 1);
  REQUIRE(m.problem.empty());
  REQUIRE(m.map.size() == 4);
  for (int p = 0; p < 4; ++p) {
    double sum = 0;
    for (int c = 0; c < 3; ++c) sum += std::fabs(tv.values[12 + c * 4 + p]);
    CHECK(m.map[p] == Approx(sum / 3));
  }
  std::vector<double> strength(3);
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < 4; ++p) strength[c] += std::fabs(tv.values[12 + c * 4 + p]) / 4;
  for (size_t k = 1; k < m.order.size(); ++k) CHECK(strength[m.order[k - 1]] >= strength[m.order[k]]);
  // A row past the kept rows says so.
  tvis::viewer::TensorValues kept1 = tv;
  kept1.shape[0] = 1;
  kept1.values.resize(12);
  CHECK(tvis::viewer::layer_maps(kept1, {2, 3, 2, 2}, 1).problem.find("not kept") != std::string::npos);
  // Tokens on a patch grid, [CLS] left out: T = 1 + 2 x 2.
  tvis::viewer::TensorValues tok;
  tok.shape = {1, 5, 2};
  tok.values = {9, 9, 1, -1, 2, 2, 3, -3, 4, 4};
  const auto t = tvis::viewer::layer_maps(tok, {1, 5, 2}, 0);
  CHECK(t.skipped_cls);
  CHECK(t.map_rows == 2);
  CHECK(t.map == std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("Explore's inspector shows the same layer panel for a module call", "[viewer][replay][explore]") {
  const auto events = file_events(TVIS_TEST_GOLDEN_RUN);
  const std::vector<uint64_t> leaves = forward_leaves(events, 0);
  REQUIRE(!leaves.empty());
  HeadlessApp h;
  h.show_page("Explore");
  open(h, TVIS_TEST_GOLDEN_RUN);
  REQUIRE(command(h, {{"select", leaves.front()}}) == true);
  h.frame(3);
  CHECK(view(h)["layer"].is_null());  // the tensors are shown until Layer view is chosen
  REQUIRE(command(h, {{"layer_view", true}}) == true);
  h.frame(6);
  const json layer = view(h)["layer"];
  REQUIRE(layer.is_object());
  CHECK(layer["module"] == events.at(leaves.front()).name);
  CHECK(layer["of"] == "activation");
  CHECK(layer["step"] == 0);
  CHECK((layer["map"].is_array() || layer["neurons_order"].is_array() || layer.contains("problem")));
}

namespace {

// Forward module calls of `step`, their Output record (lowest slot), the
// followed sample's row (or -1), all read from the file without the viewer.
struct FileOutputs {
  std::map<uint64_t, double> batch_mean_abs;  // event -> the record's mean |x| (whole batch)
  std::map<uint64_t, double> row_mean_abs;    // event -> mean |x[row]| from the kept float32 values
  int row = -1;                               // the followed sample's batch row (-1: no samples)
};

FileOutputs file_outputs(const std::string& path, int step, int sample) {
  auto reader = tvis::format::RunReader::open_sync(tvis::test::file_source_for(path));
  REQUIRE(reader.ok());
  const auto events = file_events(path);
  using tvis::format::ChunkKind;
  FileOutputs out;
  std::map<uint32_t, std::shared_ptr<const tvis::format::DecodedChunk>> chunks;
  for (const auto& c : reader.value()->chunks()) {
    auto chunk = reader.value()->read_chunk_sync(c.ordinal);
    REQUIRE(chunk.ok());
    chunks[c.ordinal] = chunk.value();
    if (c.info.kind == static_cast<uint16_t>(ChunkKind::Samples))
      for (const auto* smp : *chunk.value()->root()->body_as_SampleBatch()->samples())
        if (smp->step() == step && smp->id() == sample && out.row < 0) out.row = smp->batch_position();
  }
  std::map<uint64_t, const schema::TensorRecord*> output;
  for (const auto& [ordinal, chunk] : chunks) {
    const auto* body = chunk->root()->body_as_TensorBatch();
    if (!body || !body->tensors()) continue;
    for (const auto* t : *body->tensors()) {
      if (t->role() != schema::TensorRole::Output || t->event() < 0) continue;
      auto e = events.find(static_cast<uint64_t>(t->event()));
      if (e == events.end() || e->second.step != step || e->second.phase != schema::Phase::Forward ||
          e->second.kind != schema::EventKind::ModuleCall)
        continue;
      auto& best = output[e->first];
      if (!best || t->slot() < best->slot()) best = t;
    }
  }
  for (const auto& [event, t] : output) {
    if (t->stats()) out.batch_mean_abs[event] = t->stats()->mean_abs();
    const int64_t rows = t->kept() == schema::ValuesKept::LeadingRows ? t->kept_rows()
                         : t->kept() == schema::ValuesKept::Full && t->shape()->size() ? t->shape()->Get(0)
                                                                                         : 0;
    if (out.row < 0 || out.row >= rows || t->dtype() != schema::DType::Float32) continue;
    size_t per = 1;
    for (size_t d = 1; d < t->shape()->size(); ++d) per *= static_cast<size_t>(t->shape()->Get(d));
    const auto* bytes = chunks.at(t->data_chunk())->root()->body_as_TensorData()->bytes();
    REQUIRE(t->data_offset() + static_cast<uint64_t>(rows) * per * 4 <= bytes->size());
    double sum = 0;
    for (size_t i = 0; i < per; ++i) {
      float f;
      std::memcpy(&f, bytes->data() + t->data_offset() + (static_cast<size_t>(out.row) * per + i) * 4, 4);
      sum += std::fabs(static_cast<double>(f));
    }
    out.row_mean_abs[event] = sum / static_cast<double>(per);
  }
  return out;
}

}  // namespace

TEST_CASE("forward colours: the followed sample's mean |output[row]| where kept, else the batch's", "[viewer][replay]") {
  for (const std::string& path : runs_under_test())
  for (int step : {0, 1}) {
    INFO(path << " step " << step);
    HeadlessApp h;
    open(h, path);
    if (step >= h.state()["run"]["steps"].get<int>()) continue;
    REQUIRE(command(h, {{"link", {{"page", "Replay"}, {"step", step}, {"phase", "forward"}}}}) == true);
    json d;
    for (int i = 0; i < 120; ++i) {  // the forward's first stop: only the calls it has reached are lit
      h.frame(1);
      const json at = view(h);
      d = at["diagram"];
      if (at["phase"] == "forward" && d["legend"].get<std::string>().find("loading") == std::string::npos) break;
    }
    const size_t lit_first = d["values"].size();
    // To the forward's last stop (the next phase, one stop back): every call has run.
    REQUIRE(command(h, {{"key", "down"}}) == true);
    h.frame(2);
    REQUIRE(command(h, {{"key", "left"}}) == true);
    h.frame(2);
    for (int i = 0; i < 120; ++i) {  // until every call is decided (bounded decodes per frame)
      h.frame(1);
      d = view(h)["diagram"];
      if (d["legend"].get<std::string>().find("loading") == std::string::npos) break;
    }
    const json v = view(h);
    REQUIRE(v["phase"] == "forward");
    REQUIRE(v["step"] == step);
    const FileOutputs f = file_outputs(path, v["step"].get<int>(), v["sample"].get<int>());
    const std::string legend = d["legend"].get<std::string>();
    INFO(legend);
    REQUIRE(!f.batch_mean_abs.empty());
    CHECK(lit_first < f.batch_mean_abs.size());  // at the forward's first stop the later layers are not lit yet
    size_t from_batch = 0;
    for (const auto& [event, batch] : f.batch_mean_abs) {
      INFO("event " << event);
      REQUIRE(d["values"].contains(std::to_string(event)));
      const double got = d["values"][std::to_string(event)].get<double>();
      auto own = f.row_mean_abs.find(event);
      if (own != f.row_mean_abs.end()) {
        CHECK(got == Approx(own->second).epsilon(1e-9));
      } else {
        CHECK(got == Approx(batch).epsilon(1e-12));
        ++from_batch;
      }
    }
    if (f.row < 0) {
      CHECK(legend.find("of the batch") != std::string::npos);
    } else if (from_batch == 0) {
      CHECK(legend == "activation: mean |output| of sample " + std::to_string(v["sample"].get<int>()));
    } else {
      CHECK(legend.find("not kept") != std::string::npos);
      CHECK(legend.find("--max-elems") != std::string::npos);
    }
  }
}
