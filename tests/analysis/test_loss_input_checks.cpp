// The loss-input checks on hand-built records: a Tensors chunk holding the
// loss call's input and targets, and a Loss chunk naming them. Targets out of
// range are an error only past the class count or below 0 (ignore_index
// aside); one class for every target is a warning; softmax output given to
// cross_entropy is an error; ordinary logits and targets say nothing. A loss
// call that raised (no Loss chunk, only its event with detail "raised") is
// judged from the input and target its event names.
#include <catch2/catch.hpp>

#include "tvis/analysis/diagnose.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/schema/recording_generated.h"

namespace {

namespace an = tvis::analysis;
namespace sc = tvis::schema;
namespace fmt = tvis::format;

struct TensorSpec {
  uint64_t id;
  std::vector<int64_t> shape;
  sc::DType dtype;
  double min, max, mean;
  uint64_t count;
};

fmt::DecodedChunk chunk_of(flatbuffers::FlatBufferBuilder& b, fmt::ChunkKind kind) {
  fmt::ChunkEntry entry;
  entry.info.kind = static_cast<uint16_t>(kind);
  return fmt::DecodedChunk(entry, fmt::Bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()));
}

fmt::DecodedChunk tensors(const std::vector<TensorSpec>& specs) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<sc::TensorRecord>> recs;
  for (const TensorSpec& t : specs) {
    auto stats = sc::CreateStats(b, t.count, t.count, 0, 0, t.min, t.max, t.mean, 1.0, std::abs(t.mean), 1.0);
    auto shape = b.CreateVector(t.shape);
    sc::TensorRecordBuilder r(b);
    r.add_id(t.id), r.add_event(7), r.add_step(0), r.add_sample(-1), r.add_shape(shape), r.add_dtype(t.dtype);
    r.add_stats(stats);
    recs.push_back(r.Finish());
  }
  auto batch = sc::CreateTensorBatch(b, b.CreateVector(recs));
  b.Finish(sc::CreateChunk(b, sc::Body::TensorBatch, batch.Union()));
  return chunk_of(b, fmt::ChunkKind::Tensors);
}

fmt::DecodedChunk loss(const char* call, int64_t logits, int64_t targets, int64_t ignore_index = -100) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<sc::KeyValue>> args = {
      sc::CreateKeyValue(b, b.CreateString("ignore_index"), b.CreateString(std::to_string(ignore_index)))};
  auto rec = sc::CreateLossRecord(b, 0, 7, b.CreateString(call), b.CreateString("mean"), b.CreateVector(args), 1.5,
                                  b.CreateString("1.5"), targets, logits);
  b.Finish(sc::CreateChunk(b, sc::Body::LossRecord, rec.Union()));
  return chunk_of(b, fmt::ChunkKind::Loss);
}

std::vector<an::Finding> run(const std::vector<TensorSpec>& specs, fmt::DecodedChunk loss_chunk) {
  an::RunFacts facts;
  facts.add_chunk(tensors(specs));
  facts.add_chunk(loss_chunk);
  facts.finish();
  return an::diagnose(facts);
}

std::vector<std::string> kinds(const std::vector<an::Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.kind);
  return out;
}

const char* kCE = "torch.nn.functional.cross_entropy";
const TensorSpec kLogits{1, {8, 5}, sc::DType::Float32, -3.0, 4.0, 0.1, 40};

}  // namespace

TEST_CASE("ordinary logits and targets say nothing", "[analysis][loss]") {
  CHECK(run({kLogits, {2, {8}, sc::DType::Int64, 0, 4, 2.0, 8}}, loss(kCE, 1, 2)).empty());
}

TEST_CASE("a target at or past the class count is an error", "[analysis][loss]") {
  const auto f = run({kLogits, {2, {8}, sc::DType::Int64, 0, 5, 2.5, 8}}, loss(kCE, 1, 2));
  REQUIRE(kinds(f) == std::vector<std::string>{"target_out_of_range"});
  CHECK(f[0].severity == an::Severity::Error);
  CHECK(f[0].message.find("5 classes") != std::string::npos);
  CHECK(f[0].where.subject == tvis::analysis::Subject::Loss);
}

TEST_CASE("ignore_index below 0 is not out of range; another negative target is", "[analysis][loss]") {
  CHECK(run({kLogits, {2, {8}, sc::DType::Int64, -100, 4, 1.0, 8}}, loss(kCE, 1, 2)).empty());
  CHECK(kinds(run({kLogits, {2, {8}, sc::DType::Int64, -1, 4, 1.0, 8}}, loss(kCE, 1, 2))) ==
        std::vector<std::string>{"target_out_of_range"});
  CHECK(run({kLogits, {2, {8}, sc::DType::Int64, -1, 4, 1.0, 8}}, loss(kCE, 1, 2, -1)).empty());
}

TEST_CASE("every target one class is a warning", "[analysis][loss]") {
  const auto f = run({kLogits, {2, {8}, sc::DType::Int64, 3, 3, 3.0, 8}}, loss(kCE, 1, 2));
  REQUIRE(kinds(f) == std::vector<std::string>{"constant_targets"});
  CHECK(f[0].severity == an::Severity::Warning);
}

TEST_CASE("softmax output given to cross_entropy is an error; nll_loss wants log-probabilities", "[analysis][loss]") {
  const TensorSpec probs{1, {8, 5}, sc::DType::Float32, 0.01, 0.9, 0.2, 40};  // mean 1/5: rows sum to 1
  const TensorSpec targets{2, {8}, sc::DType::Int64, 0, 4, 2.0, 8};
  CHECK(kinds(run({probs, targets}, loss(kCE, 1, 2))) == std::vector<std::string>{"probabilities_as_logits"});
  CHECK(kinds(run({probs, targets}, loss("torch.nn.functional.nll_loss", 1, 2))) ==
        std::vector<std::string>{"probabilities_as_logits"});
  const TensorSpec log_probs{1, {8, 5}, sc::DType::Float32, -6.0, -0.01, -1.9, 40};
  CHECK(run({log_probs, targets}, loss("torch.nn.functional.nll_loss", 1, 2)).empty());
  // soft targets (the input's shape) are not class indices: nothing about their range
  CHECK(run({kLogits, {2, {8, 5}, sc::DType::Float32, 0, 1, 0.2, 40}}, loss(kCE, 1, 2)).empty());
}

namespace {

/// The LossCall event (id 7, step 0) of a call that raised: detail
/// ("raised", "1") and its ignore_index, its input and target as the inputs.
fmt::DecodedChunk raised_call(const char* call, int64_t ignore_index) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<sc::KeyValue>> kvs = {
      sc::CreateKeyValue(b, b.CreateString("raised"), b.CreateString("1")),
      sc::CreateKeyValue(b, b.CreateString("ignore_index"), b.CreateString(std::to_string(ignore_index)))};
  auto name = b.CreateString(call);
  auto detail = b.CreateVector(kvs);
  auto inputs = b.CreateVector(std::vector<uint64_t>{1, 2});
  sc::EventBuilder eb(b);
  eb.add_id(7), eb.add_kind(sc::EventKind::LossCall), eb.add_step(0), eb.add_phase(sc::Phase::Loss);
  eb.add_name(name), eb.add_detail(detail), eb.add_inputs(inputs);
  auto events = std::vector<flatbuffers::Offset<sc::Event>>{eb.Finish()};
  auto batch = sc::CreateEventBatch(b, b.CreateVector(events));
  b.Finish(sc::CreateChunk(b, sc::Body::EventBatch, batch.Union()));
  return chunk_of(b, fmt::ChunkKind::Events);
}

}  // namespace

TEST_CASE("a loss call that raised is judged from its recorded inputs", "[analysis][loss]") {
  // CPU cross_entropy raises on a target of 5 for 5 classes: no LossRecord, only the event
  const auto f = run({kLogits, {2, {8}, sc::DType::Int64, 0, 5, 2.5, 8}}, raised_call(kCE, -100));
  REQUIRE(kinds(f) == std::vector<std::string>{"target_out_of_range"});
  CHECK(f[0].where.step == 0);
  CHECK(f[0].message.find("raised") != std::string::npos);
  // in range, or below 0 only where it is the call's ignore_index: nothing
  CHECK(run({kLogits, {2, {8}, sc::DType::Int64, 0, 4, 2.0, 8}}, raised_call(kCE, -100)).empty());
  CHECK(run({kLogits, {2, {8}, sc::DType::Int64, -1, 4, 1.0, 8}}, raised_call(kCE, -1)).empty());
}
