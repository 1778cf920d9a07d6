// The checks that read optimizer steps, on hand-built records: update_ratio
// judged by the optimizer's family (a gradient step, an adaptive step, a
// closure's inner iterations, a weight that was zero), optimizer_no_effect,
// lr_schedule, nothing_to_judge, and the cross-rank checks (ranks_diverge,
// duplicate_rank_data, ranks_missing) over several ranks' records. Each finds its mistake
// and stays quiet on the healthy twin.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tvis/analysis/diagnose.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/schema/recording_generated.h"

namespace {

namespace an = tvis::analysis;
namespace sc = tvis::schema;
namespace fmt = tvis::format;

/// One tensor record: its id, role, name, step, shape and the statistics the checks read.
struct TensorSpec {
  uint64_t id;
  sc::TensorRole role;
  std::string name;
  int step;
  std::vector<int64_t> shape;
  double l2, mean = 0, std = 1;
  uint64_t nan = 0, inf = 0;
};

struct ParamSpec {
  std::string name;
  uint64_t weight;
  int64_t grad = -1, update = -1;
};

struct StepSpec {
  int step;
  uint64_t event;
  std::string optimizer;
  std::vector<std::pair<std::string, std::string>> hyper;  // one group holding every parameter
  std::vector<ParamSpec> params;
};

void add(an::RunFacts& facts, flatbuffers::FlatBufferBuilder& b, fmt::ChunkKind kind) {
  fmt::ChunkEntry entry;
  entry.info.kind = static_cast<uint16_t>(kind);
  facts.add_chunk(fmt::DecodedChunk(entry, fmt::Bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize())));
}

void add_tensors(an::RunFacts& facts, const std::vector<TensorSpec>& specs) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<sc::TensorRecord>> out;
  for (const TensorSpec& t : specs) {
    double n = 1;
    for (int64_t d : t.shape) n *= double(d);
    auto stats = sc::CreateStats(b, uint64_t(n), uint64_t(n) - t.nan - t.inf, t.nan, t.inf, -t.l2, t.l2, t.mean, t.std,
                                 t.l2 / std::sqrt(n), t.l2);
    auto name = b.CreateString(t.name);
    auto shape = b.CreateVector(t.shape);
    sc::TensorRecordBuilder tb(b);
    tb.add_id(t.id), tb.add_role(t.role), tb.add_name(name), tb.add_step(t.step), tb.add_shape(shape);
    tb.add_dtype(sc::DType::Float32), tb.add_stats(stats);
    out.push_back(tb.Finish());
  }
  auto batch = sc::CreateTensorBatch(b, b.CreateVector(out));
  b.Finish(sc::CreateChunk(b, sc::Body::TensorBatch, batch.Union()));
  add(facts, b, fmt::ChunkKind::Tensors);
}

void add_step(an::RunFacts& facts, const StepSpec& s) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<sc::KeyValue>> hyper;
  for (const auto& [k, v] : s.hyper) hyper.push_back(sc::CreateKeyValue(b, b.CreateString(k), b.CreateString(v)));
  std::vector<flatbuffers::Offset<flatbuffers::String>> names;
  std::vector<flatbuffers::Offset<sc::ParamRecord>> params;
  for (const ParamSpec& p : s.params) {
    names.push_back(b.CreateString(p.name));
    params.push_back(sc::CreateParamRecord(b, b.CreateString(p.name), p.weight, p.grad, p.update));
  }
  auto group = sc::CreateParamGroup(b, b.CreateVector(hyper), b.CreateVector(names));
  auto groups = b.CreateVector(std::vector<flatbuffers::Offset<sc::ParamGroup>>{group});
  auto record = sc::CreateOptimizerStepRecord(b, s.step, s.event, b.CreateString(s.optimizer), groups,
                                              b.CreateVector(params));
  b.Finish(sc::CreateChunk(b, sc::Body::OptimizerStepRecord, record.Union()));
  add(facts, b, fmt::ChunkKind::OptimizerStep);
}

/// A run of one 2-D weight "fc.weight" (64 elements, ||w|| = 1) over `steps`
/// steps of `optimizer` at `lr`, each updating it by `update_l2` (the
/// weight's ||w|| is `first_l2` at step 0 and 1 after).
an::RunFacts one_weight(const std::string& optimizer, const std::string& lr, double update_l2, int steps = 1,
                        double first_l2 = 1, std::vector<std::pair<std::string, std::string>> extra = {}) {
  an::RunFacts facts;
  std::vector<TensorSpec> tensors;
  for (int s = 0; s < steps; ++s) {
    const uint64_t base = 100 * (s + 1);
    tensors.push_back({base, sc::TensorRole::Weight, "fc.weight", s, {8, 8}, s == 0 ? first_l2 : 1.0});
    tensors.push_back({base + 1, sc::TensorRole::Grad, "fc.weight", s, {8, 8}, 0.5});
    tensors.push_back({base + 2, sc::TensorRole::Update, "fc.weight", s, {8, 8}, update_l2});
  }
  add_tensors(facts, tensors);
  for (int s = 0; s < steps; ++s) {
    const uint64_t base = 100 * (s + 1);
    auto hyper = extra;
    hyper.emplace_back("lr", lr);
    add_step(facts, {s, uint64_t(10 + s), optimizer, hyper, {{"fc.weight", base, int64_t(base + 1), int64_t(base + 2)}}});
  }
  facts.finish();
  return facts;
}

const an::Finding* find(const std::vector<an::Finding>& fs, const std::string& kind) {
  auto it = std::find_if(fs.begin(), fs.end(), [&](const an::Finding& f) { return f.kind == kind; });
  return it == fs.end() ? nullptr : &*it;
}

std::string evidence_text(const an::Finding& f, const char* key) {
  for (const an::Evidence& e : f.evidence)
    if (e.key == key) return e.text;
  return "";
}

}  // namespace

TEST_CASE("update_ratio: a gradient step is judged against 0.5, an adaptive step against 10") {
  // SGD with momentum on a fresh initialisation: a third of the weight in an early step is healthy.
  CHECK_FALSE(find(an::diagnose(one_weight("SGD", "0.1", 0.37)), "update_ratio"));
  // SGD moving more than half of the weight in one step: too high.
  auto fs = an::diagnose(one_weight("SGD", "0.5", 0.7));
  REQUIRE(find(fs, "update_ratio"));
  CHECK(find(fs, "update_ratio")->severity == an::Severity::Warning);
  CHECK(an::diagnose(one_weight("SGD", "5", 3.0)).front().severity == an::Severity::Error);
  // Adam's first step on a small-initialised layer: each element moves by about lr.
  CHECK_FALSE(find(an::diagnose(one_weight("Adam", "0.03", 0.54)), "update_ratio"));
  CHECK_FALSE(find(an::diagnose(one_weight("AdamW", "0.001", 0.27)), "update_ratio"));
  // Adagrad at lr 0.1 on a wide linear model drawn at +-0.02: five times the weight, and it trains.
  CHECK_FALSE(find(an::diagnose(one_weight("Adagrad", "0.1", 5.3)), "update_ratio"));
  // Adam at lr 1 (a typo): every element moves by 20 times the weight's size.
  fs = an::diagnose(one_weight("Adam", "1", 20.0));
  REQUIRE(find(fs, "update_ratio"));
  CHECK(find(fs, "update_ratio")->severity == an::Severity::Warning);
  CHECK(an::diagnose(one_weight("Adam", "10", 200.0)).front().severity == an::Severity::Error);
  // Adadelta at its default lr 1.0: a unit-free step of a third of the weight.
  CHECK_FALSE(find(an::diagnose(one_weight("Adadelta", "1.0", 0.31)), "update_ratio"));
}

TEST_CASE("update_ratio: RMSprop's first steps are judged without their designed amplification") {
  // alpha 0.99: the first step is 10 lr per element; 2x the weight is 0.2 once divided.
  CHECK_FALSE(find(an::diagnose(one_weight("RMSprop", "0.01", 2.0, 1, 1, {{"alpha", "0.99"}})), "update_ratio"));
  CHECK(find(an::diagnose(one_weight("RMSprop", "1", 400.0, 1, 1, {{"alpha", "0.99"}})), "update_ratio"));
}

TEST_CASE("update_ratio: an LBFGS step is judged per inner iteration") {
  CHECK_FALSE(find(an::diagnose(one_weight("LBFGS", "1", 4.37, 1, 1, {{"max_iter", "20"}})), "update_ratio"));
  CHECK(find(an::diagnose(one_weight("LBFGS", "1", 4.37, 1, 1, {{"max_iter", "2"}})), "update_ratio"));
}

TEST_CASE("update_ratio: a weight that was zero, exactly or nearly, is not judged by its ratio") {
  // LoRA's B: zero at step 0, a designed first step from zero, then large relative to itself at step 1.
  CHECK_FALSE(find(an::diagnose(one_weight("AdamW", "0.001", 5.0, 2, 0.0)), "update_ratio"));
  // timm's cls_token, drawn with std 1e-6: AdamW's first step is a thousand times its size.
  CHECK_FALSE(find(an::diagnose(one_weight("AdamW", "0.001", 1000.0, 1, 8e-6)), "update_ratio"));
  // A weight of ordinary size is judged.
  CHECK(find(an::diagnose(one_weight("AdamW", "1", 1000.0, 1, 1.0)), "update_ratio"));
}

TEST_CASE("optimizer_no_effect: an optimizer that holds only parameters without a gradient") {
  an::RunFacts facts;
  add_tensors(facts, {{1, sc::TensorRole::Weight, "head.weight", 0, {4, 8}, 1.0},
                      {2, sc::TensorRole::Update, "head.weight", 0, {4, 8}, 0.0}});
  add_step(facts, {0, 10, "SGD", {{"lr", "0.1"}}, {{"head.weight", 1, -1, 2}}});
  facts.finish();
  auto fs = an::diagnose(facts);
  const an::Finding* f = find(fs, "optimizer_no_effect");
  REQUIRE(f);
  CHECK(f->severity == an::Severity::Error);
  CHECK(evidence_text(*f, "case") == "no_gradients");
  CHECK(f->where.param == "head.weight");
  CHECK_FALSE(find(fs, "param_without_grad"));  // the same fact, said once
  // The healthy twin: it has a gradient and moves.
  CHECK_FALSE(find(an::diagnose(one_weight("SGD", "0.1", 0.01)), "optimizer_no_effect"));
  // A warmup's first step at lr 0 changes nothing by design.
  CHECK_FALSE(find(an::diagnose(one_weight("AdamW", "0.0", 0.0)), "optimizer_no_effect"));
  // A non-zero lr and a gradient, and nothing moved.
  CHECK(find(an::diagnose(one_weight("SGD", "0.1", 0.0)), "optimizer_no_effect"));
}

TEST_CASE("lr_schedule: a per-epoch schedule stepped per batch falls within the first steps") {
  auto lr_run = [](const std::vector<std::string>& lrs) {
    an::RunFacts facts;
    std::vector<TensorSpec> tensors;
    for (size_t s = 0; s < lrs.size(); ++s) tensors.push_back({100 + s, sc::TensorRole::Weight, "w", int(s), {8, 8}, 1});
    add_tensors(facts, tensors);
    for (size_t s = 0; s < lrs.size(); ++s) add_step(facts, {int(s), 10 + s, "SGD", {{"lr", lrs[s]}}, {{"w", 100 + s}}});
    facts.finish();
    return an::diagnose(facts);
  };
  const auto fs = lr_run({"0.1", "0.05", "0.025", "0.0125"});  // ExponentialLR(0.5) per batch
  REQUIRE(find(fs, "lr_schedule"));
  CHECK(find(fs, "lr_schedule")->where.step == 2);
  CHECK_FALSE(find(lr_run({"0.0", "0.001", "0.002", "0.003"}), "lr_schedule"));  // warmup
  CHECK_FALSE(find(lr_run({"0.1", "0.099", "0.098", "0.097"}), "lr_schedule"));  // a decay over the whole training
  CHECK_FALSE(find(lr_run({"0.004", "0.01", "0.004", "0.0009"}), "lr_schedule"));  // one-cycle: rises first
  CHECK_FALSE(find(lr_run({"0.001", "0.00075", "0.0005", "0.00025"}), "lr_schedule"));  // a linear decay of 4 steps
  CHECK(find(lr_run({"0.1", "0.1", "0.01", "0.01"}), "lr_schedule"));  // StepLR(2, 0.1) per batch
}

TEST_CASE("non_finite: masked logits in a step that stayed finite are not a finding") {
  // NT-Xent's similarity matrix with -inf on its diagonal, into cross_entropy: the step stays finite.
  auto masked = [](bool nan_grad) {
    an::RunFacts facts;
    add_tensors(facts, {{1, sc::TensorRole::Weight, "fc.weight", 0, {8, 8}, 1.0},
                        {2, sc::TensorRole::Grad, "fc.weight", 0, {8, 8}, 0.5, 0, 1, nan_grad ? 64u : 0u},
                        {3, sc::TensorRole::Update, "fc.weight", 0, {8, 8}, 0.01},
                        {4, sc::TensorRole::Input, "", 0, {16, 16}, 3.0, 0, 1, 0, 16}});
    add_step(facts, {0, 20, "SGD", {{"lr", "0.1"}}, {{"fc.weight", 1, 2, 3}}});
    facts.finish();
    return an::diagnose(facts);
  };
  CHECK_FALSE(find(masked(false), "non_finite"));
  // The same Inf in a step whose gradient turned NaN: reported, from the Inf on.
  CHECK(find(masked(true), "non_finite"));
}

TEST_CASE("nothing_to_judge: a run without a completed step, or whose recorder stopped") {
  an::RunFacts empty;
  empty.finish();
  CHECK(an::nothing_to_judge(empty).find("no completed optimizer step") != std::string::npos);
  CHECK(an::nothing_to_judge(one_weight("SGD", "0.1", 0.01)).empty());

  an::RunFacts stopped = one_weight("SGD", "0.1", 0.01);
  flatbuffers::FlatBufferBuilder b;
  auto notice = sc::CreateNotice(b, b.CreateString("recorder_error"),
                                 b.CreateString("recording stopped after an internal error in a module hook: X"));
  auto notices = b.CreateVector(std::vector<flatbuffers::Offset<sc::Notice>>{notice});
  sc::RunMetaBuilder mb(b);
  mb.add_steps_recorded(1), mb.add_notices(notices);
  b.Finish(sc::CreateChunk(b, sc::Body::RunMeta, mb.Finish().Union()));
  add(stopped, b, fmt::ChunkKind::RunMeta);
  stopped.finish();
  CHECK(an::nothing_to_judge(stopped) == "recording stopped after an internal error in a module hook: X");
}

namespace {

/// One rank's run: "fc.weight" before step 0 with ||w|| = 1, its gradient of
/// l2 `grad_l2`, its local (pre-all-reduce) gradient `local_l2`, a batch of
/// mean `batch_mean`, and an AllReduce event (a DDP model); its RunMeta says
/// `steps` steps recorded and whether it ended normally (`complete`).
an::RunFacts rank_run(int rank, double grad_l2, double local_l2, double batch_mean, int steps = 1,
                      bool complete = false) {
  an::RunFacts facts;
  add_tensors(facts, {{1, sc::TensorRole::Weight, "fc.weight", 0, {8, 8}, 1.0},
                      {2, sc::TensorRole::Grad, "fc.weight", 0, {8, 8}, grad_l2},
                      {3, sc::TensorRole::Update, "fc.weight", 0, {8, 8}, 0.01},
                      {4, sc::TensorRole::LocalGrad, "fc.weight", 0, {8, 8}, local_l2},
                      {5, sc::TensorRole::Batch, "", 0, {16, 8}, 4.0, batch_mean, 1.0}});
  add_step(facts, {0, 20, "SGD", {{"lr", "0.1"}}, {{"fc.weight", 1, 2, 3}}});
  {
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<sc::Event>> events;
    sc::EventBuilder eb(b);
    eb.add_id(12), eb.add_kind(sc::EventKind::AllReduce), eb.add_step(0), eb.add_phase(sc::Phase::Backward);
    events.push_back(eb.Finish());
    b.Finish(sc::CreateChunk(b, sc::Body::EventBatch, sc::CreateEventBatch(b, b.CreateVector(events)).Union()));
    add(facts, b, fmt::ChunkKind::Events);
  }
  {
    flatbuffers::FlatBufferBuilder b;
    auto batch = b.CreateVector(std::vector<uint64_t>{5});
    sc::SampleBatchBuilder sb(b);
    sb.add_step(0), sb.add_batch(batch);
    b.Finish(sc::CreateChunk(b, sc::Body::SampleBatch, sb.Finish().Union()));
    add(facts, b, fmt::ChunkKind::Samples);
  }
  {
    flatbuffers::FlatBufferBuilder b;
    auto key = b.CreateString("rank"), value = b.CreateString(std::to_string(rank));
    auto options = b.CreateVector(std::vector<flatbuffers::Offset<sc::KeyValue>>{sc::CreateKeyValue(b, key, value)});
    sc::RunMetaBuilder mb(b);
    mb.add_steps_recorded(steps), mb.add_complete(complete), mb.add_options(options);
    b.Finish(sc::CreateChunk(b, sc::Body::RunMeta, mb.Finish().Union()));
    add(facts, b, fmt::ChunkKind::RunMeta);
  }
  facts.finish();
  return facts;
}

std::vector<an::Finding> both(const an::RunFacts& a, const an::RunFacts& b) { return an::diagnose({&a, &b}); }

}  // namespace

TEST_CASE("ranks_diverge: gradients that were not all-reduced, or changed on one rank") {
  // All-reduced: the same gradient on both ranks, each different from its local one.
  const an::RunFacts r0 = rank_run(0, 1.0, 0.8, 0.1), r1 = rank_run(1, 1.0, 1.3, -0.2);
  auto fs = both(r0, r1);
  CHECK_FALSE(find(fs, "ranks_diverge"));
  CHECK_FALSE(find(fs, "duplicate_rank_data"));
  // Not all-reduced: each rank's gradient is its own local one.
  fs = both(rank_run(0, 0.8, 0.8, 0.1), rank_run(1, 1.3, 1.3, -0.2));
  const an::Finding* f = find(fs, "ranks_diverge");
  REQUIRE(f);
  CHECK(evidence_text(*f, "case") == "not_all_reduced");
  CHECK(f->where.param == "fc.weight");
  CHECK(f->severity == an::Severity::Error);
  // Clipped on one rank after the all-reduce.
  fs = both(rank_run(0, 0.1, 0.8, 0.1), rank_run(1, 1.0, 1.3, -0.2));
  REQUIRE(find(fs, "ranks_diverge"));
  CHECK(evidence_text(*find(fs, "ranks_diverge"), "case") == "gradients_differ");
  // One rank alone says nothing about ranks.
  CHECK_FALSE(find(an::diagnose(rank_run(0, 0.8, 0.8, 0.1)), "ranks_diverge"));
}

TEST_CASE("ranks_diverge: ranks that ended normally after different numbers of steps") {
  const an::RunFacts r0 = rank_run(0, 1.0, 0.8, 0.1, 3, true), r1 = rank_run(1, 1.0, 1.3, -0.2, 5, true);
  auto fs = both(r0, r1);
  const an::Finding* f = find(fs, "ranks_diverge");
  REQUIRE(f);
  CHECK(evidence_text(*f, "case") == "step_counts_differ");
  CHECK(f->where.step == 3);
  CHECK(f->message.find("rank 0 recorded 3 steps and rank 1 recorded 5") != std::string::npos);
  // Equal counts, or a rank that did not end normally (killed, raised): nothing said of the counts.
  CHECK_FALSE(find(both(rank_run(0, 1.0, 0.8, 0.1, 3, true), rank_run(1, 1.0, 1.3, -0.2, 3, true)), "ranks_diverge"));
  CHECK_FALSE(find(both(rank_run(0, 1.0, 0.8, 0.1, 3, false), rank_run(1, 1.0, 1.3, -0.2, 5, true)), "ranks_diverge"));
}

TEST_CASE("ranks_missing: rank 0 of a world of 2 read alone, with the reason its recording gives") {
  an::RunFacts r0 = one_weight("SGD", "0.1", 0.01);
  flatbuffers::FlatBufferBuilder b;
  auto notice = sc::CreateNotice(b, b.CreateString("rank_not_recorded"),
                                 b.CreateString("rank 1 of a world of 2 was not recorded: started as `python -m x`"));
  auto notices = b.CreateVector(std::vector<flatbuffers::Offset<sc::Notice>>{notice});
  auto options = b.CreateVector(std::vector<flatbuffers::Offset<sc::KeyValue>>{
      sc::CreateKeyValue(b, b.CreateString("rank"), b.CreateString("0")),
      sc::CreateKeyValue(b, b.CreateString("world_size"), b.CreateString("2"))});
  sc::RunMetaBuilder mb(b);
  mb.add_steps_recorded(1), mb.add_notices(notices), mb.add_options(options);
  b.Finish(sc::CreateChunk(b, sc::Body::RunMeta, mb.Finish().Union()));
  add(r0, b, fmt::ChunkKind::RunMeta);
  r0.finish();
  const auto fs = an::diagnose(std::vector<const an::RunFacts*>{&r0});
  const an::Finding* f = find(fs, "ranks_missing");
  REQUIRE(f);
  CHECK(f->severity == an::Severity::Note);
  CHECK(f->message.find("no recording of rank 1 of the world of 2") != std::string::npos);
  CHECK(f->message.find("started as `python -m x`") != std::string::npos);
  // Every rank there, nothing said.
  CHECK_FALSE(find(both(rank_run(0, 1.0, 0.8, 0.1), rank_run(1, 1.0, 1.3, -0.2)), "ranks_missing"));
}

TEST_CASE("duplicate_rank_data: every rank trained on the same batch") {
  auto fs = both(rank_run(0, 1.0, 0.8, 0.1), rank_run(1, 1.0, 0.8, 0.1));
  REQUIRE(find(fs, "duplicate_rank_data"));
  CHECK(find(fs, "duplicate_rank_data")->severity == an::Severity::Warning);
}
