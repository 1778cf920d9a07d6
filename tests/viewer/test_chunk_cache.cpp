// ChunkCache: on-demand reads, LRU eviction within the budget, pinning,
// remembered failures.
#include <catch2/catch.hpp>

#include "tvis/viewer_model/chunk_cache.h"
#include <mutex>
#include <thread>
#include <vector>

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

namespace {

// A file source that remembers the threads its reads ran on.
class ThreadNotingSource : public tvis::format::ByteSource {
 public:
  explicit ThreadNotingSource(std::shared_ptr<tvis::format::ByteSource> inner) : inner_(std::move(inner)) {}
  uint64_t size() const override { return inner_->size(); }
  std::string name() const override { return inner_->name(); }
  void read(uint64_t offset, uint64_t length, tvis::format::ReadDone done) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads_.push_back(std::this_thread::get_id());
    }
    inner_->read(offset, length, std::move(done));
  }
  std::vector<std::thread::id> threads() {
    std::lock_guard<std::mutex> lock(mutex_);
    return threads_;
  }

 private:
  std::shared_ptr<tvis::format::ByteSource> inner_;
  std::mutex mutex_;
  std::vector<std::thread::id> threads_;
};

}  // namespace

TEST_CASE("with the decode worker, chunks are decoded off the caller's thread and land at pump", "[viewer][cache]") {
  const std::string path = tvis::test::write_synthetic_run("worker.tvis", 3);
  auto file = tvis::format::open_file_source(path);
  REQUIRE(file.ok());
  auto noting = std::make_shared<ThreadNotingSource>(file.value());
  auto reader = tvis::format::RunReader::open_sync(noting);
  REQUIRE(reader.ok());
  const size_t opening_reads = noting->threads().size();
  auto cache = std::make_shared<tvis::viewer::ChunkCache>(reader.value(), 64 << 20);
  REQUIRE(cache->use_decode_worker());
  REQUIRE(cache->decodes_in_background());
  auto plain = open_reader(path);  // the same chunks decoded synchronously, to compare
  const uint32_t n = static_cast<uint32_t>(plain->chunks().size());
  REQUIRE(n > 4);
  for (uint32_t i = 0; i < n; ++i) {
    CHECK_FALSE(cache->get(i));  // never decoded inside get(), even from a file
    CHECK(cache->loading(i));
  }
  cache->wait_for_decodes();
  CHECK(cache->in_flight() == 0);
  CHECK(cache->decoded_chunks() == n);
  for (uint32_t i = 0; i < n; ++i) {
    auto chunk = cache->get(i);
    REQUIRE(chunk);
    auto expected = plain->read_chunk_sync(i);
    REQUIRE(expected.ok());
    CHECK(chunk->entry().ordinal == i);
    CHECK(chunk->bytes() == expected.value()->bytes());
  }
  const auto threads = noting->threads();
  REQUIRE(threads.size() == opening_reads + n);
  for (size_t k = opening_reads; k < threads.size(); ++k) CHECK(threads[k] != std::this_thread::get_id());
}

TEST_CASE("with the decode worker, a failed chunk is remembered and pins hold", "[viewer][cache]") {
  const std::string path = tvis::test::write_synthetic_run("worker_fail.tvis", 2);
  auto reader = open_reader(path);
  const auto entry = reader->chunks().at(1);
  std::string bytes = tvis::test::read_file(path);
  bytes[entry.offset + 56 + entry.compressed_size / 2] ^= 0x33;
  tvis::test::write_file(path, bytes);
  auto cache = std::make_shared<tvis::viewer::ChunkCache>(reader, 1);  // everything is over budget
  REQUIRE(cache->use_decode_worker());
  cache->prefetch(0, true);
  CHECK_FALSE(cache->get(1));
  cache->wait_for_decodes();
  REQUIRE(cache->failure(1));
  CHECK(cache->failure(1)->code == tvis::format::ErrorCode::BadChecksum);
  CHECK_FALSE(cache->get(1));
  CHECK(cache->in_flight() == 0);  // not asked again
  for (uint32_t i = 2; i < reader->chunks().size(); ++i) cache->get(i);
  cache->wait_for_decodes();
  const uint64_t before = reader->source().bytes_read();
  CHECK(cache->get(0));  // pinned through prefetch: still resident
  CHECK(reader->source().bytes_read() == before);
}

TEST_CASE("a cache with decodes queued can be destroyed", "[viewer][cache]") {
  const std::string path = tvis::test::write_synthetic_run("worker_late.tvis", 3);
  auto reader = open_reader(path);
  auto cache = std::make_shared<tvis::viewer::ChunkCache>(reader, 64 << 20);
  REQUIRE(cache->use_decode_worker());
  for (uint32_t i = 0; i < reader->chunks().size(); ++i) cache->get(i);
  cache.reset();  // joins the worker; what it had not started is dropped
  CHECK(reader->source().bytes_read() > 0);
}
