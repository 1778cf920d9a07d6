// RunBuilder: what it writes reads back through the format reader with the
// invariants readers rely on (events dense and in id order across chunks,
// tensor values at their recorded place, 16-byte aligned Shuffle4 data).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include "tvis/recorder/run_builder.h"

using namespace tvis;
using namespace tvis::recorder;

namespace {
std::unique_ptr<schema::EventT> event(const char* name, int step) {
  auto e = std::make_unique<schema::EventT>();
  e->name = name;
  e->step = step;
  return e;
}
}  // namespace

TEST_CASE("events leave in id order even when an enclosing call ends last", "[builder]") {
  const std::string path = "/tmp/tvis_test_run_builder_" + std::to_string(::getpid()) + ".tvis";
  BuilderOptions o;
  o.path = path;
  o.data_chunk_bytes = 1024;  // several TensorData chunks
  auto b = RunBuilder::create(o);
  REQUIRE(b.ok());
  RunBuilder& rb = *b.value();
  rb.write_meta(schema::RunMetaT{});
  const uint64_t outer = rb.begin_event(event("main", 0));
  std::vector<float> values(300);
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.5f;
  std::vector<uint64_t> tensor_ids;
  for (int step = 0; step < 3; ++step) {
    const uint64_t inner = rb.begin_event(event("forward", step));
    auto rec = std::make_unique<schema::TensorRecordT>();
    rec->step = step;
    rec->shape = {300};
    rec->dtype = schema::DType::Float32;
    rec->kept = schema::ValuesKept::Full;
    rec->stats = std::make_unique<schema::StatsT>();
    tensor_ids.push_back(rb.add_tensor(std::move(rec), values.data(), values.size() * 4, true));
    rb.end_event(inner, 100 + step);
    rb.flush();  // `main` is still open: nothing after it may leave yet
  }
  rb.end_event(outer, 1000);
  REQUIRE(rb.finalize(schema::SourceFilesT{}, schema::RunMetaT{}, 2000).is_ok());

  auto src = format::open_file_source(path);
  REQUIRE(src.ok());
  auto r = format::RunReader::open_sync(src.value());
  REQUIRE(r.ok());
  CHECK(r.value()->complete());
  uint64_t next = 0;
  int tensors_seen = 0;
  for (uint32_t i = 0; i < r.value()->chunks().size(); ++i) {
    auto c = r.value()->read_chunk_sync(i);
    REQUIRE(c.ok());
    const auto* root = c.value()->root();
    if (const auto* eb = root->body_as_EventBatch())
      for (const auto* e : *eb->events()) CHECK(e->id() == next++);
    if (const auto* tb = root->body_as_TensorBatch()) {
      for (const auto* t : *tb->tensors()) {
        auto data = r.value()->read_chunk_sync(t->data_chunk());
        REQUIRE(data.ok());
        CHECK(data.value()->entry().info.filter == format::ChunkFilter::Shuffle4);
        const auto* bytes = data.value()->root()->body_as_TensorData()->bytes();
        CHECK(reinterpret_cast<uintptr_t>(bytes->data()) % 16 ==
              reinterpret_cast<uintptr_t>(data.value()->bytes().data()) % 16);
        REQUIRE(t->data_offset() + t->data_size() <= bytes->size());
        CHECK(std::memcmp(bytes->data() + t->data_offset(), values.data(), t->data_size()) == 0);
        ++tensors_seen;
      }
    }
  }
  CHECK(next == 4);
  CHECK(tensors_seen == 3);
  std::remove(path.c_str());
}
