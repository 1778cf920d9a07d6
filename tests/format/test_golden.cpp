// The golden file of each format major version (tests/data/golden_v<major>.tvis)
// is read by every later tvis. This test knows nothing about how they were
// made: it checks the invariants every run must keep, and that `tvis inspect
// --json` of each still equals tests/data/golden_v<major>.json. golden_v2
// holds XOR delta chunks (its weights after each step), one against another.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "inspect_json.h"
#include "test_util.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/container_codec.h"
#include "tvis/format/run_summary.h"
#include "tvis/schema/recording_generated.h"

namespace fmt = tvis::format;
namespace sc = tvis::schema;

namespace {
std::string golden(int major) { return std::string(TVIS_TEST_DATA_DIR) + "/golden_v" + std::to_string(major) + ".tvis"; }

size_t dtype_size(sc::DType t) {
  switch (t) {
    case sc::DType::Float64: case sc::DType::Int64: case sc::DType::Complex64: return 8;
    case sc::DType::Complex128: return 16;
    case sc::DType::Float32: case sc::DType::Int32: return 4;
    case sc::DType::Float16: case sc::DType::BFloat16: case sc::DType::Int16: return 2;
    default: return 1;
  }
}
}  // namespace

TEST_CASE("golden_v<major>.tvis opens with three reads and keeps every invariant", "[golden]") {
  const int major = GENERATE(1, 2);
  INFO("golden_v" << major << ".tvis");
  auto src = fmt::open_file_source(golden(major));
  REQUIRE(src.ok());
  auto opened = fmt::RunReader::open_sync(src.value());
  REQUIRE(opened.ok());
  fmt::RunReader& r = *opened.value();
  CHECK(r.complete());
  CHECK(r.header().version_major == major);
  CHECK(src.value()->bytes_read() < (1u << 20));
  int deltas = 0, delta_on_delta = 0;
  for (const fmt::ChunkEntry& e : r.chunks()) {
    if (e.info.encoding != fmt::ChunkEncoding::XorDelta) continue;
    ++deltas;
    auto c = r.read_chunk_sync(e.ordinal);
    REQUIRE(c.ok());
    CHECK(c.value()->bytes().size() + fmt::kXorDeltaTrailerSize == e.raw_size);
    CHECK(c.value()->root()->body_as_TensorData() != nullptr);  // the body: a plain TensorData FlatBuffer
    for (const fmt::ChunkEntry& b : r.chunks())
      if (b.ordinal < e.ordinal && b.info.encoding == fmt::ChunkEncoding::XorDelta &&
          b.raw_size == e.raw_size && b.info.step_last + 1 == e.info.step_first)
        ++delta_on_delta;
  }
  CHECK(deltas == (major == 1 ? 0 : 2));
  CHECK(delta_on_delta == (major == 1 ? 0 : 1));

  std::vector<std::shared_ptr<const fmt::DecodedChunk>> chunks;
  uint64_t prev_end = fmt::kFileHeaderSize;
  for (uint32_t i = 0; i < r.chunks().size(); ++i) {
    const fmt::ChunkEntry& e = r.chunks()[i];
    CHECK(e.ordinal == i);
    CHECK(e.offset >= prev_end);
    prev_end = e.offset + fmt::kChunkHeaderSize + e.compressed_size;
    auto c = r.read_chunk_sync(i);
    REQUIRE(c.ok());
    chunks.push_back(c.value());
  }

  std::set<uint64_t> event_ids;  // a chunk's events sort by id; ranges may overlap (run_builder.h)
  std::set<uint64_t> tensor_ids;
  for (const auto& c : chunks) {
    const fmt::ChunkEntry& e = c->entry();
    INFO(fmt::describe_chunk(e));
    const sc::Chunk* root = c->root();
    REQUIRE(root);
    if (const auto* b = root->body_as_EventBatch()) {
      REQUIRE(b->events());
      REQUIRE(b->events()->size() > 0);
      CHECK(e.info.event_first == b->events()->Get(0)->id());
      CHECK(e.info.event_last == b->events()->Get(b->events()->size() - 1)->id());
      for (const auto* ev : *b->events()) {
        CHECK(event_ids.insert(ev->id()).second);  // each once; dense from 0 over the run (below)
        CHECK(ev->parent() < int64_t(ev->id()));
        if (ev->step() >= 0) {
          CHECK(ev->step() >= e.info.step_first);
          CHECK(ev->step() <= e.info.step_last);
        }
      }
    }
    if (const auto* b = root->body_as_TensorBatch()) {
      for (const auto* t : *b->tensors()) {
        CHECK(tensor_ids.insert(t->id()).second);
        if (t->kept() == sc::ValuesKept::None) continue;
        REQUIRE(t->data_chunk() < chunks.size());
        const auto& data = chunks[t->data_chunk()];
        REQUIRE(data->entry().info.kind == uint16_t(fmt::ChunkKind::TensorData));
        const auto* bytes = data->root()->body_as_TensorData()->bytes();
        CHECK(t->data_offset() + t->data_size() <= bytes->size());
        if (t->kept() == sc::ValuesKept::Full && t->shape()) {
          uint64_t n = 1;
          for (int64_t d : *t->shape()) n *= uint64_t(d);
          CHECK(t->data_size() == n * dtype_size(t->dtype()));
        }
      }
    }
  }
  if (!tensor_ids.empty()) CHECK(*tensor_ids.rbegin() == tensor_ids.size() - 1);  // dense from 0
  REQUIRE_FALSE(event_ids.empty());
  CHECK(*event_ids.rbegin() == event_ids.size() - 1);
}

TEST_CASE("tvis inspect --json of golden_v<major>.tvis equals golden_v<major>.json", "[golden]") {
  const int major = GENERATE(1, 2);
  INFO("golden_v" << major << ".tvis");
  auto r = fmt::RunReader::open_sync(fmt::open_file_source(golden(major)).value());
  REQUIRE(r.ok());
  auto s = fmt::summarize_run(*r.value());
  REQUIRE(s.ok());
  const std::string text = tvis::cli::inspect_json(s.value());
  const auto actual = nlohmann::json::parse(text);
  const auto expected = nlohmann::json::parse(
      tvis::test::read_file(std::string(TVIS_TEST_DATA_DIR) + "/golden_v" + std::to_string(major) + ".json"));
  CHECK(actual.dump(2) == expected.dump(2));
  // Losses print with Python repr() digits.
  for (const auto& l : actual["losses"])
    if (l.is_number()) CHECK(text.find(fmt::python_float_repr(l.get<double>())) != std::string::npos);
}
