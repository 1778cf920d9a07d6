// The loss_scale check on hand-built records: a Tensors chunk holding a loss
// call's logits [32, 4] and targets [32], and one Loss chunk per backward of
// step 0 whose value is the call's output (call_value) times a factor applied
// after the call. A summed loss divided by the batch (times the backwards of
// the step) and a mean loss divided by the backwards of the step say
// nothing; any other divisor is a warning; factors above 1 (a loss scaler),
// composite losses and reduction none are not judged. Several backwards of
// a step on the undivided mean of one call (accumulation without `/ k`) are
// a note.
#include <catch2/catch.hpp>

#include "tvis/analysis/diagnose.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/schema/recording_generated.h"

namespace {

namespace an = tvis::analysis;
namespace sc = tvis::schema;
namespace fmt = tvis::format;

constexpr double kCallValue = 1.5;

fmt::DecodedChunk chunk_of(flatbuffers::FlatBufferBuilder& b, fmt::ChunkKind kind) {
  fmt::ChunkEntry entry;
  entry.info.kind = static_cast<uint16_t>(kind);
  return fmt::DecodedChunk(entry, fmt::Bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()));
}

flatbuffers::Offset<sc::TensorRecord> tensor(flatbuffers::FlatBufferBuilder& b, uint64_t id,
                                             std::vector<int64_t> shape, sc::DType dtype, uint64_t count) {
  auto stats = sc::CreateStats(b, count, count, 0, 0, 0.0, 3.0, 1.0, 1.0, 1.0, 1.0);
  auto dims = b.CreateVector(shape);
  sc::TensorRecordBuilder r(b);
  r.add_id(id), r.add_event(7), r.add_step(0), r.add_sample(-1), r.add_shape(dims), r.add_dtype(dtype);
  r.add_stats(stats);
  return r.Finish();
}

/// The logits (id 1) and targets (id 2) of a micro-batch of `batch` rows.
fmt::DecodedChunk batch_tensors(int64_t batch) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<sc::TensorRecord>> recs = {
      tensor(b, 1, {batch, 4}, sc::DType::Float32, uint64_t(batch * 4)),
      tensor(b, 2, {batch}, sc::DType::Int64, uint64_t(batch))};
  auto tb = sc::CreateTensorBatch(b, b.CreateVector(recs));
  b.Finish(sc::CreateChunk(b, sc::Body::TensorBatch, tb.Union()));
  return chunk_of(b, fmt::ChunkKind::Tensors);
}

/// The LossRecord of one backward: cross_entropy of `reduction`, scaled by
/// `factor` after the call through `outer`.
fmt::DecodedChunk loss(const char* reduction, double factor, const char* outer) {
  flatbuffers::FlatBufferBuilder b;
  const double value = kCallValue * factor;
  auto rec = sc::CreateLossRecord(b, 0, 7, b.CreateString("torch.nn.functional.cross_entropy"),
                                  b.CreateString(reduction), 0, value, b.CreateString(std::to_string(value)), 2, 1,
                                  0, 0, b.CreateString(outer), *outer ? kCallValue : std::nan(""));
  b.Finish(sc::CreateChunk(b, sc::Body::LossRecord, rec.Union()));
  return chunk_of(b, fmt::ChunkKind::Loss);
}

/// diagnose over `backwards` backwards of step 0, each of a micro-batch of `batch`.
std::vector<an::Finding> run(int64_t batch, int backwards, const char* reduction, double factor,
                             const char* outer = "DivBackward0") {
  an::RunFacts facts;
  facts.add_chunk(batch_tensors(batch));
  for (int i = 0; i < backwards; ++i) facts.add_chunk(loss(reduction, factor, outer));
  facts.finish();
  return an::diagnose(facts);
}

std::string evidence_text(const an::Finding& f, const char* key) {
  for (const an::Evidence& e : f.evidence)
    if (e.key == key) return e.text;
  return "";
}

double evidence(const an::Finding& f, const char* key) {
  for (const an::Evidence& e : f.evidence)
    if (e.key == key) return e.number;
  return -1;
}

}  // namespace

TEST_CASE("a summed loss divided by the batch, or by the batch of every backward of the step, says nothing",
          "[analysis][loss_scale]") {
  CHECK(run(32, 1, "sum", 1.0 / 32).empty());
  CHECK(run(8, 4, "sum", 1.0 / 32).empty());
}

TEST_CASE("a mean loss divided by the backwards of the step (accumulation) says nothing", "[analysis][loss_scale]") {
  CHECK(run(8, 4, "mean", 0.25).empty());
  CHECK(run(16, 2, "mean", 0.5, "MulBackward0").empty());
  CHECK(run(32, 1, "mean", 1.0, "").empty());
}

TEST_CASE("a summed loss divided by something other than the batch is a warning", "[analysis][loss_scale]") {
  const auto f = run(32, 1, "sum", 0.25);
  REQUIRE(f.size() == 1);
  CHECK(f[0].kind == "loss_scale");
  CHECK(evidence_text(f[0], "case") == "divisor");
  CHECK(f[0].severity == an::Severity::Warning);
  CHECK(evidence(f[0], "factor") == Approx(0.25));
  CHECK(evidence(f[0], "divisor") == Approx(4));
  CHECK(evidence(f[0], "expected_divisor") == Approx(32));
  CHECK(evidence(f[0], "batch") == 32);
  CHECK(evidence(f[0], "backwards") == 1);
  CHECK(f[0].where.subject == tvis::analysis::Subject::Loss);
  CHECK(f[0].where.step == 0);
  CHECK(f[0].message.find("divided by 4") != std::string::npos);
  CHECK(f[0].message.find("8 times") != std::string::npos);
}

TEST_CASE("a mean loss divided by a count other than the backwards of the step is a warning",
          "[analysis][loss_scale]") {
  const auto one = run(32, 1, "mean", 0.25);  // loss / 4 with no accumulation
  REQUIRE(one.size() == 1);
  CHECK(one[0].kind == "loss_scale");
  CHECK(evidence(one[0], "expected_divisor") == 1);
  const auto two = run(16, 2, "mean", 0.25);  // divided by 4 over 2 backwards
  REQUIRE(two.size() == 1);
  CHECK(evidence(two[0], "backwards") == 2);
  CHECK(two[0].message.find("0.5 times") != std::string::npos);
}

TEST_CASE("a loss scaler's factor, a composite loss and reduction none are not judged", "[analysis][loss_scale]") {
  CHECK(run(32, 1, "mean", 65536.0, "MulBackward0").empty());
  CHECK(run(32, 1, "sum", 0.25, "AddBackward0").empty());
  CHECK(run(32, 1, "none", 0.25).empty());
}

TEST_CASE("several backwards of a step on the undivided mean loss are a note", "[analysis][loss_scale]") {
  const auto f = run(8, 4, "mean", 1.0, "");
  REQUIRE(f.size() == 1);
  CHECK(f[0].kind == "loss_scale");
  CHECK(f[0].severity == an::Severity::Note);
  CHECK(evidence_text(f[0], "case") == "undivided_accumulation");
  CHECK(evidence(f[0], "backwards") == 4);
  CHECK(evidence(f[0], "expected_divisor") == 4);
  CHECK(f[0].message.find("divide each loss by 4") != std::string::npos);
  // a divided one, or a summed loss, is not this case
  CHECK(run(8, 4, "sum", 1.0, "").empty());
}
