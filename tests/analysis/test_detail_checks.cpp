// The checks that read what the recorder puts in an event's detail, on
// hand-built events: mode mistakes (model_training / training), gradients
// carried across steps (grads_carried at a backward), dead units (dead_units,
// units, unit_samples of a ReLU call) and gradients no optimizer applies
// (grads_unoptimized at an optimizer step). Each finds its mistake, stays
// quiet on healthy values, and ignores values no recorder writes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tvis/analysis/diagnose.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/schema/recording_generated.h"

namespace {

namespace an = tvis::analysis;
namespace sc = tvis::schema;
namespace fmt = tvis::format;

using KVs = std::vector<std::pair<std::string, std::string>>;

struct EventSpec {
  uint64_t id;
  sc::EventKind kind;
  sc::Phase phase;
  int step;
  std::string name, class_name;
  KVs detail;
  int64_t parent = -1;
};

std::vector<an::Finding> run(const std::vector<EventSpec>& specs) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<sc::Event>> events;
  for (const EventSpec& e : specs) {
    std::vector<flatbuffers::Offset<sc::KeyValue>> kvs;
    for (const auto& [k, v] : e.detail) kvs.push_back(sc::CreateKeyValue(b, b.CreateString(k), b.CreateString(v)));
    auto name = b.CreateString(e.name), cls = b.CreateString(e.class_name);
    auto detail = b.CreateVector(kvs);
    sc::EventBuilder eb(b);
    eb.add_id(e.id), eb.add_parent(e.parent), eb.add_kind(e.kind), eb.add_step(e.step), eb.add_phase(e.phase);
    eb.add_name(name), eb.add_class_name(cls), eb.add_detail(detail);
    events.push_back(eb.Finish());
  }
  auto batch = sc::CreateEventBatch(b, b.CreateVector(events));
  b.Finish(sc::CreateChunk(b, sc::Body::EventBatch, batch.Union()));
  fmt::ChunkEntry entry;
  entry.info.kind = static_cast<uint16_t>(fmt::ChunkKind::Events);
  an::RunFacts facts;
  facts.add_chunk(fmt::DecodedChunk(entry, fmt::Bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize())));
  facts.finish();
  return an::diagnose(facts);
}

// A finding of `kind`, or of kind "mode" whose evidence "case" is `kind` (eval_mode_in_training,
// train_mode_in_evaluation: one kind, two cases).
const an::Finding* find(const std::vector<an::Finding>& fs, const std::string& kind) {
  auto it = std::find_if(fs.begin(), fs.end(), [&](const an::Finding& f) {
    if (f.kind == kind) return true;
    for (const auto& e : f.evidence)
      if (f.kind == "mode" && e.key == "case" && e.text == kind) return true;
    return false;
  });
  return it == fs.end() ? nullptr : &*it;
}

constexpr auto kModule = sc::EventKind::ModuleCall;
constexpr auto kFwd = sc::Phase::Forward;
constexpr auto kEval = sc::Phase::Evaluation;

}  // namespace

TEST_CASE("a training forward with the model in eval mode is a warning", "[analysis][modes]") {
  auto fs = run({{0, kModule, kFwd, 1, "", "Net", {{"model_training", "0"}}},
                 {1, kModule, kFwd, 1, "drop", "Dropout", {{"training", "0"}}, 0}});
  const an::Finding* f = find(fs, "eval_mode_in_training");
  REQUIRE(f);
  CHECK(f->severity == an::Severity::Warning);
  CHECK(f->where.module == "drop");
  CHECK(f->where.step == 1);
  CHECK(f->message.find("dropout was off") != std::string::npos);
}

TEST_CASE("a BatchNorm frozen by hand in a training model is a note", "[analysis][modes]") {
  auto fs = run({{0, kModule, kFwd, 0, "", "Net", {{"model_training", "1"}}},
                 {1, kModule, kFwd, 0, "bn", "BatchNorm2d", {{"training", "0"}}, 0}});
  const an::Finding* f = find(fs, "eval_mode_in_training");
  REQUIRE(f);
  CHECK(f->severity == an::Severity::Note);
  CHECK(f->message.find("running statistics") != std::string::npos);
}

TEST_CASE("an evaluation in train mode is a warning; the right modes say nothing", "[analysis][modes]") {
  auto bad = run({{0, kModule, kEval, 2, "", "Net", {{"model_training", "1"}}},
                  {1, kModule, kEval, 2, "bn", "BatchNorm1d", {{"training", "1"}}, 0}});
  REQUIRE(find(bad, "train_mode_in_evaluation"));
  auto good = run({{0, kModule, kFwd, 0, "", "Net", {{"model_training", "1"}}},
                   {1, kModule, kFwd, 0, "drop", "Dropout", {{"training", "1"}}, 0},
                   {2, kModule, kEval, 0, "", "Net", {{"model_training", "0"}}},
                   {3, kModule, kEval, 0, "drop", "Dropout", {{"training", "0"}}, 2}});
  CHECK(good.empty());
}

TEST_CASE("a non-zero .grad at a step's first backward is carried over", "[analysis][carried]") {
  auto fs = run({{0, sc::EventKind::BackwardCall, sc::Phase::Backward, 0, "backward", "",
                  {{"grads_checked", "4"}, {"grads_carried", "0"}}},
                 {1, sc::EventKind::BackwardCall, sc::Phase::Backward, 1, "backward", "",
                  {{"grads_checked", "4"}, {"grads_carried", "4"}, {"grads_carried_norm", "2.5"},
                   {"grads_carried_param", "fc.weight"}}}});
  const an::Finding* f = find(fs, "stale_gradients");
  REQUIRE(f);
  CHECK(f->where.step == 1);
  CHECK(f->where.param == "fc.weight");
  auto clean = run({{0, sc::EventKind::BackwardCall, sc::Phase::Backward, 1, "backward", "",
                     {{"grads_checked", "4"}, {"grads_carried", "0"}}}});
  CHECK(clean.empty());
}

TEST_CASE("a ReLU layer dead for the whole batch in every step is named", "[analysis][dead]") {
  auto fs = run({{0, kModule, kFwd, 0, "act", "ReLU", {{"dead_units", "28"}, {"units", "32"}, {"unit_samples", "32"}}},
                 {1, kModule, kFwd, 0, "act", "ReLU", {{"dead_units", "1"}, {"units", "32"}, {"unit_samples", "32"}}},
                 {2, kModule, kFwd, 1, "act", "ReLU", {{"dead_units", "30"}, {"units", "32"}, {"unit_samples", "32"}}},
                 {3, kModule, kFwd, 1, "act", "ReLU", {{"dead_units", "2"}, {"units", "32"}, {"unit_samples", "32"}}}});
  const an::Finding* f = find(fs, "dead_units");
  REQUIRE(f);
  CHECK(f->where.module == "act");
  CHECK(f->evidence.front().number == Approx(28.0 / 32));
  CHECK(f->message.find("call") == std::string::npos);  // the first call of act, not the second
}

TEST_CASE("dead units: units that revive, or too few samples per unit, say nothing", "[analysis][dead]") {
  auto fs = run({{0, kModule, kFwd, 0, "act", "ReLU", {{"dead_units", "28"}, {"units", "32"}, {"unit_samples", "32"}}},
                 {1, kModule, kFwd, 1, "act", "ReLU", {{"dead_units", "2"}, {"units", "32"}, {"unit_samples", "32"}}},
                 {2, kModule, kFwd, 0, "b", "ReLU", {{"dead_units", "16"}, {"units", "32"}, {"unit_samples", "1"}}}});
  CHECK(fs.empty());
}

TEST_CASE("a gradient no optimizer holds is named", "[analysis][unoptimized]") {
  auto fs = run({{0, sc::EventKind::OptimizerStep, sc::Phase::Optimizer, 0, "SGD", "SGD",
                  {{"grads_unoptimized", "2"}, {"grads_unoptimized_names", "head.weight head.bias"}}}});
  const an::Finding* f = find(fs, "not_optimized");
  REQUIRE(f);
  CHECK(f->where.param == "head.weight");
  CHECK(f->message.find("head.bias") != std::string::npos);
}

TEST_CASE("detail values no recorder writes are ignored", "[analysis][hostile]") {
  for (const char* v : {"nan", "-1", "1e300", "inf", "", "12abc"}) {
    auto fs = run({{0, sc::EventKind::OptimizerStep, sc::Phase::Optimizer, 0, "SGD", "SGD", {{"grads_unoptimized", v}}},
                   {1, sc::EventKind::BackwardCall, sc::Phase::Backward, 0, "backward", "",
                    {{"grads_carried", v}, {"grads_checked", v}, {"grads_carried_norm", v}}},
                   {2, kModule, kFwd, 0, "act", "ReLU", {{"dead_units", v}, {"units", v}, {"unit_samples", v}}},
                   {3, kModule, kFwd, 0, "drop", "Dropout", {{"training", v}, {"model_training", v}}}});
    CHECK(fs.empty());
  }
}
