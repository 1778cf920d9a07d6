// The crafted runs of tests/data/hostile/consumer_*.tvis (make_consumer_files)
// against the readers of records: the copy budget (format/copy_budget.h)
// refuses exactly the chunks whose tables share vectors or strings, RunFacts
// (diagnose, diff) and the viewer's ChunkCache refuse them before copying,
// every chunk of an honest run passes, and Replay asks for the plans of the
// steps it shows, not of the million a run claims.
#include <catch2/catch.hpp>

#include <string>

#include "app_state.h"
#include "headless_app.h"
#include "scratch_dir.h"
#include "synthetic_run.h"
#include "tvis/analysis/run_facts.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/copy_budget.h"
#include "tvis/format/run_reader.h"
#include "tvis/schema/recording_generated.h"

namespace {

namespace fmt = tvis::format;
namespace sc = tvis::schema;
using nlohmann::json;

const std::string kDir = TVIS_TEST_HOSTILE_DIR;

std::shared_ptr<fmt::RunReader> open_run(const std::string& path) {
  auto reader = fmt::RunReader::open_sync(tvis::test::file_source_for(path));
  REQUIRE(reader.ok());
  return reader.value();
}

/// The copy budget's verdict on every chunk of `path`, by ordinal.
std::vector<fmt::Status> verdicts(const std::string& path) {
  auto reader = open_run(path);
  std::vector<fmt::Status> out;
  for (const fmt::ChunkEntry& e : reader->chunks()) {
    auto chunk = reader->read_chunk_sync(e.ordinal);
    REQUIRE(chunk.ok());  // the container is sound: only the records are hostile
    out.push_back(fmt::check_copy_budget(*chunk.value()));
  }
  return out;
}

fmt::DecodedChunk chunk_of(flatbuffers::FlatBufferBuilder& b, fmt::ChunkKind kind) {
  fmt::ChunkEntry entry;
  entry.info.kind = static_cast<uint16_t>(kind);
  return fmt::DecodedChunk(entry, fmt::Bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()));
}

/// An EventBatch of `tables` events that all name one id list of `ids` elements.
fmt::DecodedChunk shared_events(int tables, int ids) {
  flatbuffers::FlatBufferBuilder b;
  const auto list = b.CreateVector(std::vector<uint64_t>(size_t(ids), 7));
  std::vector<flatbuffers::Offset<sc::Event>> events;
  for (int i = 0; i < tables; ++i)
    events.push_back(sc::CreateEvent(b, uint64_t(i), -1, sc::EventKind::ModuleCall, 0, sc::Phase::Forward, 0, 0, 0, 0,
                                     0, 0, 0, 0, list));
  sc::FinishChunkBuffer(b, sc::CreateChunk(b, sc::Body::EventBatch, sc::CreateEventBatch(b, b.CreateVector(events)).Union()));
  return chunk_of(b, fmt::ChunkKind::Events);
}

}  // namespace

TEST_CASE("the copy size counts a shared vector once per table that names it", "[hostile][copy_budget]") {
  // 3 events naming one 1000-element list: 3 × 8000 bytes of ids, plus the
  // events vector's 3 offsets; nothing else is out of line.
  const fmt::DecodedChunk chunk = shared_events(3, 1000);
  fmt::CopyBudget budget(chunk.entry(), chunk.bytes().size());
  fmt::copy_walk::table(reinterpret_cast<const uint8_t*>(chunk.root()), sc::ChunkTypeTable(), budget, 0);
  CHECK(budget.spent() == 3 * 8000 + 3 * 4);
  CHECK(fmt::check_copy_budget(chunk).is_ok());  // 24 kB against a 8 kB body: within the 64 KiB slack
  const fmt::DecodedChunk many = shared_events(100, 1000);
  const fmt::Status refused = fmt::check_copy_budget(many);
  CHECK(refused.code == fmt::ErrorCode::TooLarge);
  CHECK(refused.message.find("chunk 0 (events)") != std::string::npos);
  CHECK(refused.message.find("name the same data over and over") != std::string::npos);
}

TEST_CASE("RunFacts refuses a chunk over its copy budget and keeps nothing of it", "[hostile][analysis]") {
  tvis::analysis::RunFacts facts;
  CHECK(facts.add_chunk(shared_events(3, 1000)).is_ok());
  CHECK(facts.events().size() == 3);
  const fmt::Status refused = facts.add_chunk(shared_events(100, 1000));
  CHECK(refused.code == fmt::ErrorCode::TooLarge);
  facts.finish();
  CHECK(facts.events().size() == 3);
}

TEST_CASE("the crafted files: exactly the chunks whose tables share data are refused", "[hostile][copy_budget]") {
  const auto shared = verdicts(kDir + "/consumer_shared_vectors.tvis");
  REQUIRE(shared.size() == 6);
  CHECK(shared[0].is_ok());  // its RunMeta is honest
  for (size_t i = 1; i < shared.size(); ++i) {  // events, tensors, optimizer step, loss, samples
    INFO("chunk " << i << ": " << shared[i].message);
    CHECK(shared[i].code == fmt::ErrorCode::TooLarge);
  }
  const auto meta = verdicts(kDir + "/consumer_shared_meta.tvis");
  REQUIRE(meta.size() == 1);
  CHECK(meta[0].code == fmt::ErrorCode::TooLarge);
  for (const fmt::Status& s : verdicts(kDir + "/consumer_million_steps.tvis")) CHECK(s.is_ok());
}

TEST_CASE("every chunk of an honest run is within its copy budget", "[hostile][copy_budget]") {
  for (const std::string& path : {std::string(TVIS_TEST_DATA_DIR "/golden_v1.tvis"),
                                  std::string(TVIS_TEST_DATA_DIR "/diagnose_nan_layer.tvis")})
    for (const fmt::Status& s : verdicts(path)) {
      INFO(path << ": " << s.message);
      CHECK(s.is_ok());
    }
  tvis::synth::SynthOptions o;
  o.steps = 4, o.batch_embeddings = true;
  const std::string path = tvis::test::scratch_path("honest_synth.tvis");
  REQUIRE(tvis::synth::write_synthetic_run(path, o).ok());
  for (const fmt::Status& s : verdicts(path)) {
    INFO(s.message);
    CHECK(s.is_ok());
  }
}

TEST_CASE("load_facts fails a crafted run naming the refused chunk", "[hostile][analysis]") {
  for (const char* name : {"consumer_shared_vectors.tvis", "consumer_shared_meta.tvis"}) {
    auto reader = open_run(kDir + "/" + name);
    tvis::analysis::RunFacts facts;
    const fmt::Status st = tvis::analysis::load_facts(*reader, facts, nullptr);
    INFO(name);
    CHECK(st.code == fmt::ErrorCode::TooLarge);
    CHECK(st.message.find(name == std::string("consumer_shared_meta.tvis") ? "chunk 0 (run_meta)" : "chunk 1 (events)") !=
          std::string::npos);
  }
}

TEST_CASE("the viewer shows the refused chunks as errors on every page and copies nothing from them",
          "[hostile][viewer]") {
  for (const char* name : {"consumer_shared_vectors.tvis", "consumer_shared_meta.tvis"})
    for (const char* page : {"Replay", "Explore", "Loss", "Weights", "Diagnosis"}) {
      INFO(name << " on " << page);
      tvis::test::HeadlessApp h;
      h.app().open(tvis::test::file_source_for(kDir + "/" + name));
      h.frame(2);
      h.show_page(page);
      h.frame(6);
      const json errors = h.state()["errors"];
      REQUIRE(errors.is_array());
      REQUIRE(!errors.empty());
      CHECK(errors[0].get<std::string>().find("refused as a crafted or corrupt file") != std::string::npos);
      // What the cache holds is the decoded chunks, never the copies they ask for.
      CHECK(h.app().internals().model.cache().resident_bytes() < (16u << 20));
    }
}

TEST_CASE("Replay on a run claiming a million steps builds the plans of the steps in view", "[hostile][viewer][replay]") {
  tvis::test::HeadlessApp h;
  h.app().open(tvis::test::file_source_for(kDir + "/consumer_million_steps.tvis"));
  h.frame(6);
  const json s = h.state();
  CHECK(s["run"]["steps"] == 1000000);
  CHECK(s["errors"].empty());
  CHECK(h.app().internals().model.step_stops().plan_count() < 200);
  // At the last step, the strip shows the steps around it, not every step before it.
  h.app().command(R"({"link": {"step": 999999}})");
  h.frame(6);
  CHECK(h.state()["view"]["step"] == 999999);
  CHECK(h.app().internals().model.step_stops().plan_count() < 400);
}
