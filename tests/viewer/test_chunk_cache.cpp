// ChunkCache: on-demand reads, LRU eviction within the budget, pinning,
// remembered failures.
#include <catch2/catch.hpp>

#include "tvis/viewer_model/chunk_cache.h"
#include "headless_app.h"

namespace {

std::shared_ptr<tvis::format::RunReader> open_reader(const std::string& path) {
  auto source = tvis::format::open_file_source(path);
  REQUIRE(source.ok());
  auto reader = tvis::format::RunReader::open_sync(source.value());
  REQUIRE(reader.ok());
  return reader.value();
}

}  // namespace

TEST_CASE("chunk cache stays within its budget, evicting least recently used", "[viewer][cache]") {
  const std::string path = tvis::test::write_synthetic_run("cache.tvis", 4);
  auto reader = open_reader(path);
  const size_t n = reader->chunks().size();
  REQUIRE(n > 8);
  uint64_t largest = 0;
  for (const auto& c : reader->chunks()) largest = std::max<uint64_t>(largest, c.raw_size);
  const uint64_t budget = largest * 3;
  auto cache = std::make_shared<tvis::viewer::ChunkCache>(reader, budget);
  for (uint32_t i = 0; i < n; ++i) {
    auto chunk = cache->get(i);  // synchronous source: resident at once
    REQUIRE(chunk);
    CHECK(chunk->entry().ordinal == i);
    CHECK(cache->resident_bytes() <= budget + chunk->bytes().size());
  }
  CHECK(cache->evictions() > 0);
  CHECK(cache->resident_bytes() <= budget + largest);
  // The newest chunk is resident; the oldest was evicted and comes back on demand.
  const uint64_t read_before = reader->source().bytes_read();
  CHECK(cache->get(static_cast<uint32_t>(n - 1)));
  CHECK(reader->source().bytes_read() == read_before);  // hit: no read
  CHECK(cache->get(0));
  CHECK(reader->source().bytes_read() > read_before);  // miss: read again
}

TEST_CASE("pinned chunks survive eviction", "[viewer][cache]") {
  const std::string path = tvis::test::write_synthetic_run("pin.tvis", 4);
  auto reader = open_reader(path);
  auto cache = std::make_shared<tvis::viewer::ChunkCache>(reader, 1);  // everything is over budget
  REQUIRE(cache->get_pinned(0));
  for (uint32_t i = 1; i < reader->chunks().size(); ++i) cache->get(i);
  const uint64_t before = reader->source().bytes_read();
  CHECK(cache->get(0));
  CHECK(reader->source().bytes_read() == before);
}

TEST_CASE("a failed chunk is remembered and not re-read every frame", "[viewer][cache]") {
  const std::string path = tvis::test::write_synthetic_run("fail.tvis", 2);
  auto reader = open_reader(path);
  const auto entry = reader->chunks().at(1);
  std::string bytes = tvis::test::read_file(path);
  bytes[entry.offset + 56 + entry.compressed_size / 2] ^= 0x33;
  tvis::test::write_file(path, bytes);
  auto cache = std::make_shared<tvis::viewer::ChunkCache>(reader, 1 << 20);
  CHECK_FALSE(cache->get(1));
  REQUIRE(cache->failure(1));
  CHECK(cache->failure(1)->code == tvis::format::ErrorCode::BadChecksum);
  const uint64_t before = reader->source().bytes_read();
  CHECK_FALSE(cache->get(1));
  CHECK(reader->source().bytes_read() == before);
  CHECK(cache->failure_messages().size() == 1);
  CHECK_FALSE(cache->get(99999));  // out of range: nothing, no crash
}

TEST_CASE("answers after the cache is gone are ignored", "[viewer][cache]") {
  const std::string path = tvis::test::write_synthetic_run("late.tvis", 2);
  auto source = tvis::format::open_file_source(path);
  REQUIRE(source.ok());
  auto deferred = std::make_shared<tvis::test::DeferredSource>(source.value());
  std::shared_ptr<tvis::format::RunReader> reader;
  tvis::format::RunReader::open(deferred, [&](tvis::format::Result<std::shared_ptr<tvis::format::RunReader>> r) {
    REQUIRE(r.ok());
    reader = r.value();
  });
  for (int i = 0; i < 8 && !reader; ++i) deferred->pump();
  REQUIRE(reader);
  auto cache = std::make_shared<tvis::viewer::ChunkCache>(reader, 1 << 20);
  CHECK_FALSE(cache->get(0));
  CHECK(cache->loading(0));
  cache.reset();
  CHECK(deferred->pump() >= 1);  // delivered into nothing: no crash
}
