// RunBuilder: what it writes reads back through the format reader with the
// invariants readers rely on (every event once, sorted by id inside each
// Events chunk, written at the first flush after it ended; tensor values at
// their recorded place, 16-byte aligned Shuffle4 data). DataChunkBuffer: the
// chunks it builds in place are make_tensor_data_chunk's, byte for byte.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>
#include <string>
#include <unistd.h>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/tensor_data_chunk.h"
#include "tvis/recorder/data_chunk_buffer.h"
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

TEST_CASE("ended events leave at the next flush even while an enclosing call is open", "[builder]") {
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
    rb.flush();  // `main` is still open; `forward` leaves all the same
  }
  rb.end_event(outer, 1000);
  REQUIRE(rb.finalize(schema::SourceFilesT{}, schema::RunMetaT{}, 2000).is_ok());

  auto src = format::open_file_source(path);
  REQUIRE(src.ok());
  auto r = format::RunReader::open_sync(src.value());
  REQUIRE(r.ok());
  CHECK(r.value()->complete());
  std::vector<uint64_t> ids;                    // in file order
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // Events chunk ranges
  int tensors_seen = 0;
  for (uint32_t i = 0; i < r.value()->chunks().size(); ++i) {
    auto c = r.value()->read_chunk_sync(i);
    REQUIRE(c.ok());
    const auto* root = c.value()->root();
    if (const auto* eb = root->body_as_EventBatch()) {
      ranges.emplace_back(c.value()->entry().info.event_first, c.value()->entry().info.event_last);
      uint64_t prev = 0;
      for (const auto* e : *eb->events()) {
        if (e->id() != eb->events()->Get(0)->id()) CHECK(e->id() > prev);  // sorted inside the chunk
        prev = e->id();
        CHECK(e->id() >= ranges.back().first);
        CHECK(e->id() <= ranges.back().second);
        ids.push_back(e->id());
      }
    }
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
  // Each step's `forward` in its own chunk as the step ended, `main` (id 0)
  // last, in a chunk of its own (it ended after later ids were written).
  CHECK(ids == std::vector<uint64_t>{1, 2, 3, 0});
  CHECK(ranges == std::vector<std::pair<uint64_t, uint64_t>>{{1, 1}, {2, 2}, {3, 3}, {0, 0}});
  CHECK(tensors_seen == 3);
  std::remove(path.c_str());
}

TEST_CASE("an Events chunk holds the ended events of a flush, gaps for the calls still open", "[builder]") {
  const std::string path = "/tmp/tvis_test_run_builder_gaps_" + std::to_string(::getpid()) + ".tvis";
  BuilderOptions o;
  o.path = path;
  auto b = RunBuilder::create(o);
  REQUIRE(b.ok());
  RunBuilder& rb = *b.value();
  const uint64_t a = rb.begin_event(event("a", 0));      // 0: open until finalize
  const uint64_t c1 = rb.begin_event(event("c1", 0));    // 1
  rb.end_event(c1, 1);
  const uint64_t loop = rb.begin_event(event("loop", 0));  // 2: open over two flushes
  const uint64_t c2 = rb.begin_event(event("c2", 0));    // 3
  rb.end_event(c2, 2);
  rb.flush();                                             // {1, 3}
  const uint64_t c3 = rb.begin_event(event("c3", 1));    // 4
  rb.end_event(c3, 3);
  rb.flush();                                             // {4}
  rb.end_event(loop, 4);
  const uint64_t c4 = rb.begin_event(event("c4", 1));    // 5
  rb.end_event(c4, 5);
  rb.flush();                                             // late {2}, then {5}
  (void)a;
  REQUIRE(rb.finalize(schema::SourceFilesT{}, schema::RunMetaT{}, 10).is_ok());  // late {0}

  auto src = format::open_file_source(path);
  REQUIRE(src.ok());
  auto r = format::RunReader::open_sync(src.value());
  REQUIRE(r.ok());
  std::vector<std::vector<uint64_t>> chunks;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (uint32_t i = 0; i < r.value()->chunks().size(); ++i) {
    auto c = r.value()->read_chunk_sync(i);
    REQUIRE(c.ok());
    if (const auto* eb = c.value()->root()->body_as_EventBatch()) {
      chunks.emplace_back();
      for (const auto* e : *eb->events()) chunks.back().push_back(e->id());
      ranges.emplace_back(c.value()->entry().info.event_first, c.value()->entry().info.event_last);
    }
  }
  CHECK(chunks == std::vector<std::vector<uint64_t>>{{1, 3}, {4}, {2}, {5}, {0}});
  CHECK(ranges == std::vector<std::pair<uint64_t, uint64_t>>{{1, 3}, {4, 4}, {2, 2}, {5, 5}, {0, 0}});
  std::remove(path.c_str());
}

TEST_CASE("TensorData chunks built in place equal make_tensor_data_chunk's", "[builder][data]") {
  REQUIRE(DataChunkBuffer::in_place());  // the fallback copies: correct, but slower
  for (uint64_t capacity : {uint64_t(64), uint64_t(1) << 20}) {
    DataChunkBuffer buf(capacity);
    for (int round = 0; round < 3; ++round) {  // the buffer is reused after each finish()
      std::vector<uint8_t> expect;
      for (uint64_t n : {uint64_t(4), uint64_t(20), uint64_t(7), uint64_t(333), uint64_t(16)}) {
        std::vector<uint8_t> v(n);
        for (uint64_t i = 0; i < n; ++i) v[i] = uint8_t(i * 7 + n + round);
        const uint64_t align = n % 4 == 0 ? 4 : 8;
        const uint64_t off = buf.append(v.data(), n, align);
        CHECK(off % align == 0);
        CHECK(off >= expect.size());
        expect.resize(off, 0);
        expect.insert(expect.end(), v.begin(), v.end());
        CHECK(buf.value_bytes() == expect.size());
      }
      const format::Bytes built = buf.finish();
      CHECK(buf.empty());
      CHECK(built == format::make_tensor_data_chunk(expect.data(), expect.size()));
      CHECK(built.size() % 16 == 0);
    }
  }
}

TEST_CASE("add_record writes each record as one chunk of its Body member's kind, in the order added", "[builder]") {
  const std::string path = "/tmp/tvis_test_run_builder_records_" + std::to_string(::getpid()) + ".tvis";
  BuilderOptions o;
  o.path = path;
  auto b = RunBuilder::create(o);
  REQUIRE(b.ok());
  RunBuilder& rb = *b.value();
  schema::LossRecordT loss;
  loss.step = 3;
  loss.value = 0.25;
  schema::BodyUnion u;
  u.Set(std::move(loss));
  rb.add_record(std::move(u), 3, 3, 17, 17);
  schema::GradClipRecordT clip;
  clip.step = 4;
  clip.max_norm = 1.5;
  schema::BodyUnion v;
  v.Set(std::move(clip));
  rb.add_record(std::move(v), 4, 4);
  schema::SampleBatchT kept, dropped;
  kept.batch_event = 5;
  dropped.batch_event = 6;
  schema::BodyUnion k, d;
  k.Set(std::move(kept));
  d.Set(std::move(dropped));
  rb.add_record(std::move(k), 4, 4, 5, 5);
  rb.add_record(std::move(d), 4, 4, 6, 6);
  rb.drop_sample_batches({6});
  CHECK_THROWS_AS(rb.add_record(schema::BodyUnion{}, -1, -1), std::invalid_argument);  // NONE: no chunk kind
  REQUIRE(rb.finalize(schema::SourceFilesT{}, schema::RunMetaT{}, 10).is_ok());

  auto src = format::open_file_source(path);
  REQUIRE(src.ok());
  auto r = format::RunReader::open_sync(src.value());
  REQUIRE(r.ok());
  struct Seen {
    std::string kind;
    int32_t s0, s1;
    uint64_t e0, e1;
    bool operator==(const Seen& x) const {
      return kind == x.kind && s0 == x.s0 && s1 == x.s1 && e0 == x.e0 && e1 == x.e1;
    }
  };
  std::vector<Seen> seen;
  for (uint32_t i = 0; i < r.value()->chunks().size(); ++i) {
    const auto& info = r.value()->chunks()[i].info;
    const std::string kind = format::chunk_kind_name(info.kind);
    if (kind == "run_meta" || kind == "source_files" || kind == "index") continue;
    auto c = r.value()->read_chunk_sync(i);
    REQUIRE(c.ok());
    if (const auto* l = c.value()->root()->body_as_LossRecord()) CHECK(l->value() == 0.25);
    if (const auto* g = c.value()->root()->body_as_GradClipRecord()) CHECK(g->max_norm() == 1.5);
    if (const auto* s = c.value()->root()->body_as_SampleBatch()) CHECK(s->batch_event() == 5);
    seen.push_back({kind, info.step_first, info.step_last, info.event_first, info.event_last});
  }
  const uint64_t none = UINT64_MAX;
  CHECK(seen == std::vector<Seen>{{"loss", 3, 3, 17, 17}, {"grad_clip", 4, 4, none, none}, {"samples", 4, 4, 5, 5}});
  std::remove(path.c_str());
}

namespace {
std::unique_ptr<schema::TensorRecordT> f32_record(int step, int64_t n, schema::TensorRole role) {
  auto rec = std::make_unique<schema::TensorRecordT>();
  rec->step = step;
  rec->role = role;
  rec->shape = {n};
  rec->dtype = schema::DType::Float32;
  rec->kept = schema::ValuesKept::Full;
  rec->stats = std::make_unique<schema::StatsT>();
  return rec;
}
}  // namespace

TEST_CASE("a record holding the leading bytes of an earlier copy from the same address points at them",
          "[builder][data]") {
  const std::string path = "/tmp/tvis_test_run_builder_lead_" + std::to_string(::getpid()) + ".tvis";
  BuilderOptions o;
  o.path = path;
  o.data_chunk_bytes = 64 << 10;
  auto b = RunBuilder::create(o);
  REQUIRE(b.ok());
  RunBuilder& rb = *b.value();
  rb.write_meta(schema::RunMetaT{});
  // "logits": larger than a chunk; then a small record of the same kind (which used to cut
  // the chunk), then the loss input read from the logits' first bytes; then a record from
  // the same address whose bytes changed (in place): stored, not shared.
  std::vector<float> logits(32 << 10), small(2048), changed;
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(float(i)) * 3.f;
  for (size_t i = 0; i < small.size(); ++i) small[i] = float(i) + 0.25f;
  const auto out = schema::TensorRole::Output, in = schema::TensorRole::Input;
  const uint64_t big = rb.add_tensor(f32_record(0, int64_t(logits.size()), out), logits.data(), logits.size() * 4, true);
  rb.add_tensor(f32_record(0, int64_t(small.size()), out), small.data(), small.size() * 4, true);
  const size_t lead = 20000;  // elements: a leading part, 4-byte aligned
  const uint64_t part = rb.add_tensor(f32_record(0, int64_t(lead), in), logits.data(), lead * 4, true);
  CHECK(rb.shared_records() == 1);
  CHECK(rb.shared_bytes() == lead * 4);
  logits[7] = -1.f;  // written in place: same address, other bytes
  changed.assign(logits.begin(), logits.begin() + lead);
  const uint64_t other = rb.add_tensor(f32_record(0, int64_t(lead), in), logits.data(), lead * 4, true);
  CHECK(rb.shared_records() == 1);
  rb.flush();
  REQUIRE(rb.finalize(schema::SourceFilesT{}, schema::RunMetaT{}, 10).is_ok());

  auto src = format::open_file_source(path);
  REQUIRE(src.ok());
  auto r = format::RunReader::open_sync(src.value());
  REQUIRE(r.ok());
  std::map<uint64_t, std::tuple<uint32_t, uint64_t, uint64_t>> where;  // id -> chunk, offset, size
  std::map<uint64_t, std::vector<uint8_t>> bytes_of;
  for (uint32_t i = 0; i < r.value()->chunks().size(); ++i) {
    auto c = r.value()->read_chunk_sync(i);
    REQUIRE(c.ok());
    if (const auto* tb = c.value()->root()->body_as_TensorBatch())
      for (const auto* t : *tb->tensors()) {
        where[t->id()] = {t->data_chunk(), t->data_offset(), t->data_size()};
        auto data = r.value()->read_chunk_sync(t->data_chunk());
        REQUIRE(data.ok());
        const auto* v = data.value()->root()->body_as_TensorData()->bytes();
        REQUIRE(t->data_offset() + t->data_size() <= v->size());
        bytes_of[t->id()].assign(v->data() + t->data_offset(), v->data() + t->data_offset() + t->data_size());
      }
  }
  REQUIRE(where.size() == 4);
  CHECK(std::get<0>(where[part]) == std::get<0>(where[big]));  // the logits' chunk, at their offset
  CHECK(std::get<1>(where[part]) == std::get<1>(where[big]));
  CHECK(std::get<2>(where[part]) == lead * 4);
  CHECK(std::make_pair(std::get<0>(where[other]), std::get<1>(where[other])) !=
        std::make_pair(std::get<0>(where[big]), std::get<1>(where[big])));  // a copy of its own
  const auto* lb = reinterpret_cast<const uint8_t*>(logits.data());
  std::vector<float> before(logits.begin(), logits.begin() + lead);
  before[7] = std::sin(7.f) * 3.f;
  CHECK(std::memcmp(bytes_of[part].data(), before.data(), lead * 4) == 0);
  CHECK(std::memcmp(bytes_of[other].data(), changed.data(), lead * 4) == 0);
  CHECK(std::memcmp(bytes_of[big].data() + 28, lb + 28, 4) != 0);  // the stored logits kept their first bytes
  std::remove(path.c_str());
}
