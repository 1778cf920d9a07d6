// The golden file of format version 1 (tests/data/golden_v1.tvis) is read by
// every later tvis. This test knows nothing about how it was made: it checks
// the invariants every run must keep, and that `tvis inspect --json` of it
// still equals tests/data/golden_v1.json.
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
const std::string kGolden = std::string(TVIS_TEST_DATA_DIR) + "/golden_v1.tvis";

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

TEST_CASE("golden_v1.tvis opens with three reads and keeps every invariant", "[golden]") {
  auto src = fmt::open_file_source(kGolden);
  REQUIRE(src.ok());
  auto opened = fmt::RunReader::open_sync(src.value());
  REQUIRE(opened.ok());
  fmt::RunReader& r = *opened.value();
  CHECK(r.complete());
  CHECK(r.header().version_major == 1);
  CHECK(src.value()->bytes_read() < (1u << 20));

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

  uint64_t next_event = 0;
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
        CHECK(ev->id() == next_event);  // dense from 0, in call order
        CHECK(ev->parent() < int64_t(ev->id()));
        if (ev->step() >= 0) {
          CHECK(ev->step() >= e.info.step_first);
          CHECK(ev->step() <= e.info.step_last);
        }
        ++next_event;
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
}

TEST_CASE("tvis inspect --json of golden_v1.tvis equals golden_v1.json", "[golden]") {
  auto r = fmt::RunReader::open_sync(fmt::open_file_source(kGolden).value());
  REQUIRE(r.ok());
  auto s = fmt::summarize_run(*r.value());
  REQUIRE(s.ok());
  const std::string text = tvis::cli::inspect_json(s.value());
  const auto actual = nlohmann::json::parse(text);
  const auto expected = nlohmann::json::parse(tvis::test::read_file(std::string(TVIS_TEST_DATA_DIR) + "/golden_v1.json"));
  CHECK(actual.dump(2) == expected.dump(2));
  // Losses print with Python repr() digits.
  for (const auto& l : actual["losses"])
    if (l.is_number()) CHECK(text.find(fmt::python_float_repr(l.get<double>())) != std::string::npos);
}
