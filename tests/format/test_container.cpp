// The container's pieces: shuffle, codec, versions, size limits checked
// before allocation, files over 4 GiB, asynchronous sources, the writer's
// backpressure, python_float_repr.
#include <catch2/catch.hpp>
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <new>
#include <set>
#include <sstream>
#include <thread>
#include "tvis/schema/recording_generated.h"

#include "shuffle.h"
#include "test_util.h"
#include "tvis/format/chunk_encoder.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/chunk_limits.h"
#include "tvis/format/container_codec.h"
#include "tvis/format/run_summary.h"
#include "tvis/format/run_writer.h"
#include "tvis/format/tensor_data_chunk.h"

namespace fmt = tvis::format;
using tvis::test::Bytes;

// ------------------------------------------------ allocation tracking ---
// The largest single allocation made while g_track is set: proves that a
// size read from a file is checked before anything is allocated for it.
// (Under AddressSanitizer, which owns operator new, nothing is tracked and
// those checks pass trivially; ASan itself catches huge allocations.)
static std::atomic<bool> g_track{false};
static std::atomic<size_t> g_largest{0};

#if defined(__SANITIZE_ADDRESS__)
#define TVIS_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TVIS_TEST_UNDER_ASAN 1
#endif
#endif

#ifndef TVIS_TEST_UNDER_ASAN
void* operator new(size_t n) {
  if (g_track.load(std::memory_order_relaxed) && n > g_largest.load(std::memory_order_relaxed)) g_largest = n;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
#endif

namespace {

struct TrackAllocations {
  TrackAllocations() {
    g_largest = 0;
    g_track = true;
  }
  ~TrackAllocations() { g_track = false; }
  size_t largest() const { return g_largest.load(); }
};

Bytes header_bytes(uint16_t major, uint16_t minor) {
  fmt::FileHeader h;
  h.version_major = major;
  h.version_minor = minor;
  Bytes b(fmt::kFileHeaderSize);
  fmt::encode_file_header(h, b.data());
  return b;
}

void append_header(Bytes& file, const fmt::ChunkEntry& e) {
  uint8_t h[fmt::kChunkHeaderSize];
  fmt::encode_chunk_header(e, h);
  file.insert(file.end(), h, h + sizeof h);
}

}  // namespace

TEST_CASE("shuffle writes byte planes, tails unchanged; unshuffle inverts it", "[container]") {
  for (size_t elem : {2, 4, 8}) {
    for (size_t size : {0, 1, 7, 8, 64, 1001, 4096 + 3, 65536}) {
      Bytes in(size), mid(size), out(size), expected(size);
      for (size_t i = 0; i < size; ++i) in[i] = uint8_t(i * 31 + 7 + i / 251);
      const size_t n = size / elem;  // reference: the definition, byte by byte
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < elem; ++j) expected[j * n + i] = in[i * elem + j];
      for (size_t i = n * elem; i < size; ++i) expected[i] = in[i];
      fmt::shuffle_bytes(in.data(), mid.data(), size, elem);
      CHECK(mid == expected);
      fmt::unshuffle_bytes(mid.data(), out.data(), size, elem);
      CHECK(out == in);
    }
  }
}

TEST_CASE("python_float_repr prints what Python's repr prints", "[container]") {
  CHECK(fmt::python_float_repr(2.302585092994046) == "2.302585092994046");
  CHECK(fmt::python_float_repr(0.1) == "0.1");
  CHECK(fmt::python_float_repr(1e-5) == "1e-05");
  CHECK(fmt::python_float_repr(0.0001) == "0.0001");
  CHECK(fmt::python_float_repr(1e16) == "1e+16");
  CHECK(fmt::python_float_repr(1e15) == "1000000000000000.0");
  CHECK(fmt::python_float_repr(123.456) == "123.456");
  CHECK(fmt::python_float_repr(-3.0) == "-3.0");
  CHECK(fmt::python_float_repr(2.5e-300) == "2.5e-300");
  CHECK(fmt::python_float_repr(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(fmt::python_float_repr(5e-324) == "5e-324");
  CHECK(fmt::python_float_repr(0.0) == "0.0");
  CHECK(fmt::python_float_repr(-0.0) == "-0.0");
  CHECK(fmt::python_float_repr(1.0 / 3) == "0.3333333333333333");
  CHECK(fmt::python_float_repr(std::nan("")) == "nan");
  CHECK(fmt::python_float_repr(-HUGE_VAL) == "-inf");
}

TEST_CASE("chunk header and index entry encode and decode", "[container]") {
  fmt::ChunkEntry e;
  e.info.kind = uint16_t(fmt::ChunkKind::Tensors);
  e.info.filter = fmt::ChunkFilter::Shuffle8;
  e.info.step_first = -1;
  e.info.step_last = 12;
  e.info.event_first = 5;
  e.info.event_last = (1ull << 40) + 3;
  e.ordinal = 77;
  e.offset = (5ull << 32) + 16;
  e.compressed_size = 1234;
  e.raw_size = 5678;
  e.payload_xxh64 = 0x0123456789ABCDEFull;
  uint8_t h[fmt::kChunkHeaderSize];
  fmt::encode_chunk_header(e, h);
  fmt::ChunkEntry d;
  REQUIRE(fmt::decode_chunk_header(h, e.offset, &d).is_ok());
  CHECK(d.info.step_first == -1);
  CHECK(d.info.event_last == e.info.event_last);
  CHECK(d.payload_xxh64 == e.payload_xxh64);
  CHECK(d.ordinal == 77);
  h[20] ^= 1;
  CHECK(fmt::decode_chunk_header(h, 0, &d).code == fmt::ErrorCode::BadChecksum);
  uint8_t ie[fmt::kIndexEntrySize];
  fmt::encode_index_entry(e, ie);
  d = fmt::decode_index_entry(ie);
  CHECK(d.offset == e.offset);
  CHECK(d.info.filter == fmt::ChunkFilter::Shuffle8);
  CHECK(d.raw_size == 5678);
}

TEST_CASE("versions: newer major refused naming both, any minor of 2 read", "[container][version]") {
  SECTION("newer major") {
    Bytes run = tvis::test::tiny_run();
    run[8] = 3;  // version_major = 3
    run[10] = 3;
    auto r = tvis::test::open_bytes(run);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code == fmt::ErrorCode::NewerVersion);
    CHECK(r.status().message == "run file format 3.3 is newer than this tvis reads (2.x); update tvis");
  }
  SECTION("older and newer minor of the same major") {
    for (uint16_t minor : {uint16_t(0), uint16_t(7)}) {
      auto r = tvis::test::open_bytes(tvis::test::tiny_run(1, true, minor));
      REQUIRE(r.ok());
      CHECK(r.value()->complete());
      CHECK(r.value()->header().version_minor == minor);
      auto s = fmt::summarize_run(*r.value());
      REQUIRE(s.ok());
      CHECK(s.value().format_version == std::to_string(fmt::kVersionMajor) + "." + std::to_string(minor));
      CHECK(s.value().steps == 1);
    }
  }
  SECTION("not a run") {
    auto r = tvis::test::open_bytes(Bytes{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '!', '!', '!', '!',
                                          '!', '!'});
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code == fmt::ErrorCode::NotARun);
    CHECK(tvis::test::open_bytes(Bytes{}).status().code == fmt::ErrorCode::NotARun);
  }
}

TEST_CASE("absurd sizes fail before any allocation", "[container][limits]") {
  SECTION("a scanned chunk header claiming 4 GB") {
    Bytes file = header_bytes(1, 0);
    fmt::ChunkEntry e;
    e.info.kind = uint16_t(fmt::ChunkKind::TensorData);
    e.compressed_size = 0xFFFFFFFFu;
    e.raw_size = 0xFFFFFFFFu;
    append_header(file, e);
    file.resize(file.size() + 4096, 0x55);
    TrackAllocations track;
    auto r = tvis::test::open_bytes(file);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code == fmt::ErrorCode::TooLarge);
    CHECK(r.status().message.find("chunk 0 (tensor_data) at offset 16") == 0);
    CHECK(track.largest() < 64 * 1024);
  }
  SECTION("a footer entry claiming 4 GB") {
    // A complete file whose (checksummed) index lists a 4 GB chunk.
    Bytes file = header_bytes(1, 0);
    fmt::ChunkEntry e;
    e.info.kind = uint16_t(fmt::ChunkKind::Events);
    e.offset = 16;
    e.compressed_size = 0xFFFFFFFFu;
    e.raw_size = 100;
    Bytes index(8 + fmt::kIndexEntrySize, 0);
    index[0] = 1;
    fmt::encode_index_entry(e, index.data() + 8);
    fmt::ChunkEncoder enc;
    Bytes footer;
    fmt::ChunkEntry fe;
    fmt::ChunkInfo fi;
    fi.kind = uint16_t(fmt::ChunkKind::Index);
    REQUIRE(enc.encode(fi, 1, index.data(), index.size(), &footer, &fe).is_ok());
    fmt::Trailer t;
    t.footer_offset = file.size();
    t.footer_size = footer.size();
    t.chunk_count = 1;
    file.insert(file.end(), footer.begin(), footer.end());
    uint8_t tail[fmt::kTrailerSize];
    fmt::encode_trailer(t, tail);
    file.insert(file.end(), tail, tail + sizeof tail);
    TrackAllocations track;
    auto r = tvis::test::open_bytes(file);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code == fmt::ErrorCode::TooLarge);
    CHECK(track.largest() < 64 * 1024);
  }
  SECTION("a payload whose zstd frame disagrees with raw_size") {
    fmt::ChunkEncoder enc;
    Bytes raw(1000, 7), out;
    fmt::ChunkInfo info;
    info.kind = uint16_t(fmt::ChunkKind::TensorData);
    fmt::ChunkEntry e;
    REQUIRE(enc.encode(info, 0, raw.data(), raw.size(), &out, &e).is_ok());
    e.raw_size = e.compressed_size * 1000;  // more than the frame says, less than zstd's best ratio
    TrackAllocations track;
    auto d = fmt::decode_chunk_payload(e, out.data() + fmt::kChunkHeaderSize, e.compressed_size);
    REQUIRE_FALSE(d.ok());
    CHECK(d.status().message.find("zstd frame holds 1000 bytes") != std::string::npos);
    e.raw_size = 1u << 30;  // claims 1 GiB from a few stored bytes: no zstd frame decodes to that
    auto g = fmt::decode_chunk_payload(e, out.data() + fmt::kChunkHeaderSize, e.compressed_size);
    REQUIRE_FALSE(g.ok());
    CHECK(g.status().code == fmt::ErrorCode::TooLarge);
    CHECK(g.status().message.find("more than any zstd frame decodes to") != std::string::npos);
    CHECK(track.largest() < 64 * 1024);
  }
}

// Issue 46: the crafted files of tests/data/hostile (make_hostile_chunks.cpp
// says what each holds) are refused, or summarised, without the reader ever
// allocating what a chunk declares (1 GiB, 2 GiB shuffled).
TEST_CASE("crafted chunk sizes and zstd frames are refused before allocating", "[container][hostile]") {
  struct Case {
    const char* file;
    fmt::ErrorCode code;  // Ok: a valid run, summarised
    const char* message;
    size_t max_alloc = 4u << 20;  // the largest allocation the reader may make for it
  };
  const size_t records = fmt::kTableChunkFreeSize + (1u << 20);  // one honest chunk of records, decoded
  const Case cases[] = {
      {"chunk_huge_raw_size.tvis", fmt::ErrorCode::TooLarge, "a chunk of records decodes to at most 16 MiB or 1024x"},
      {"chunk_huge_raw_size_shuffled.tvis", fmt::ErrorCode::TooLarge, "a chunk of records decodes to at most"},
      {"chunk_frame_claims_huge.tvis", fmt::ErrorCode::Corrupt, "zstd frame's blocks decode to 40960..40960 bytes"},
      {"chunk_window_huge.tvis", fmt::ErrorCode::TooLarge, "zstd frame asks for a 2.2 TB window"},
      {"chunk_footer_huge.tvis", fmt::ErrorCode::TooLarge, "an index of the chunks that fit before it holds at most"},
      {"chunk_tensor_data_garbage.tvis", fmt::ErrorCode::Corrupt, "found before decoding its 1.1 GB"},
      {"chunk_tensor_data_zeros.tvis", fmt::ErrorCode::Ok, ""},
      {"chunk_same_name_events.tvis", fmt::ErrorCode::Ok, "", records},
      {"chunk_shared_argv.tvis", fmt::ErrorCode::Ok, "", records},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    Bytes bytes = tvis::test::read_file(std::string(TVIS_TEST_DATA_DIR) + "/hostile/" + c.file);
    REQUIRE_FALSE(bytes.empty());
    TrackAllocations track;
    auto reader = fmt::RunReader::open_sync(tvis::test::memory(std::move(bytes)));
    fmt::Status status = reader.ok() ? fmt::Status::ok() : reader.status();
    if (reader.ok()) {
      auto summary = fmt::summarize_run(*reader.value());
      if (!summary.ok()) status = summary.status();
      for (uint32_t i = 0; i < reader.value()->chunks().size() && c.code != fmt::ErrorCode::Ok; ++i) {
        auto chunk = reader.value()->read_chunk_sync(i);  // the viewer's path: decode, not verify
        CHECK_FALSE(chunk.ok());
      }
    }
    CHECK(status.code == c.code);
    CHECK(status.message.find(c.message) != std::string::npos);
    CHECK(track.largest() < c.max_alloc);
  }
}

TEST_CASE("a chunk beyond 4 GiB in a sparse file is read by offset", "[container][large]") {
  // Chunks of a small run, re-laid out: chunk 0 at 16, the others after a
  // hole that puts them past 5 GiB; then footer and trailer. pwrite leaves the
  // hole unallocated, so the file takes a few kB of disk.
  Bytes small = tvis::test::tiny_run();
  auto small_reader = tvis::test::open_bytes(small);
  REQUIRE(small_reader.ok());
  const auto& chunks = small_reader.value()->chunks();
  REQUIRE(chunks.size() >= 2);

  const std::string path = tvis::test::temp_path("sparse.tvis");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  auto put = [&](uint64_t at, const uint8_t* p, uint64_t n) { REQUIRE(::pwrite(fd, p, n, off_t(at)) == ssize_t(n)); };
  put(0, small.data(), fmt::kFileHeaderSize);
  std::vector<fmt::ChunkEntry> entries;
  uint64_t at = fmt::kFileHeaderSize;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i == 1) at = (5ull << 30) + 16;
    fmt::ChunkEntry e = chunks[i];
    put(at, small.data() + e.offset, fmt::kChunkHeaderSize + e.compressed_size);
    e.offset = at;
    entries.push_back(e);
    at += fmt::kChunkHeaderSize + e.compressed_size;
  }
  Bytes index(8 + entries.size() * fmt::kIndexEntrySize, 0);
  index[0] = uint8_t(entries.size());
  for (size_t i = 0; i < entries.size(); ++i)
    fmt::encode_index_entry(entries[i], index.data() + 8 + i * fmt::kIndexEntrySize);
  fmt::ChunkEncoder enc;
  Bytes footer;
  fmt::ChunkEntry fe;
  fmt::ChunkInfo fi;
  fi.kind = uint16_t(fmt::ChunkKind::Index);
  REQUIRE(enc.encode(fi, uint32_t(entries.size()), index.data(), index.size(), &footer, &fe).is_ok());
  fmt::Trailer t{at, footer.size(), uint32_t(entries.size())};
  uint8_t tail[fmt::kTrailerSize];
  fmt::encode_trailer(t, tail);
  put(at, footer.data(), footer.size());
  put(at + footer.size(), tail, sizeof tail);
  ::close(fd);

  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK(uint64_t(st.st_size) > (5ull << 30));
  CHECK(uint64_t(st.st_blocks) * 512 < (16u << 20));  // sparse: no real disk space

  auto src = fmt::open_file_source(path);
  REQUIRE(src.ok());
  auto reader = fmt::RunReader::open_sync(src.value());
  REQUIRE(reader.ok());
  CHECK(reader.value()->complete());
  CHECK(src.value()->bytes_read() < 64 * 1024);
  const uint32_t last = uint32_t(entries.size() - 1);
  CHECK(reader.value()->chunks()[last].offset > (5ull << 30));
  auto c = reader.value()->read_chunk_sync(last);
  REQUIRE(c.ok());
  auto original = small_reader.value()->read_chunk_sync(last);
  REQUIRE(original.ok());
  CHECK(c.value()->bytes() == original.value()->bytes());
  CHECK(fmt::summarize_run(*reader.value()).ok());
}

namespace {
// A source that answers later, when pump() is called (like a browser's
// event loop): exercises the asynchronous paths of open() and the scan.
class DeferredSource : public fmt::ByteSource {
 public:
  explicit DeferredSource(Bytes b) : inner_(fmt::make_memory_source(std::move(b), "deferred")) {}
  uint64_t size() const override { return inner_->size(); }
  std::string name() const override { return "deferred"; }
  void read(uint64_t offset, uint64_t length, fmt::ReadDone done) override {
    pending_.push_back([this, offset, length, done] {
      inner_->read(offset, length, done);
      bytes_read_ = inner_->bytes_read();
    });
  }
  size_t pump() {
    size_t n = 0;
    while (!pending_.empty()) {
      auto f = std::move(pending_.front());
      pending_.pop_front();
      f();
      ++n;
    }
    return n;
  }

 private:
  std::shared_ptr<fmt::ByteSource> inner_;
  std::deque<std::function<void()>> pending_;
};
}  // namespace

TEST_CASE("open and recovery work with a source that answers later", "[container][async]") {
  for (bool finalize : {true, false}) {
    auto src = std::make_shared<DeferredSource>(tvis::test::tiny_run(2, finalize));
    bool called = false;
    std::shared_ptr<fmt::RunReader> reader;
    fmt::RunReader::open(src, [&](fmt::Result<std::shared_ptr<fmt::RunReader>> r) {
      called = true;
      REQUIRE(r.ok());
      reader = r.value();
    });
    CHECK_FALSE(called);
    const size_t reads = src->pump();
    REQUIRE(called);
    CHECK(reader->complete() == finalize);
    if (finalize) CHECK(reads == 3);  // header, trailer, footer
    else CHECK(reads > reader->chunks().size());
    bool got = false;
    reader->read_chunk(0, [&](fmt::Result<std::shared_ptr<const fmt::DecodedChunk>> c) {
      got = true;
      CHECK(c.ok());
    });
    src->pump();
    CHECK(got);
  }
  auto late = std::make_shared<DeferredSource>(tvis::test::tiny_run(1));
  CHECK(fmt::RunReader::open_sync(late).status().code == fmt::ErrorCode::Io);  // not synchronous
  late->pump();  // the abandoned open finishes harmlessly
}

namespace {

/// A run of `n` TensorData chunks (distinct values) and `n` deferred Tensors
/// tables written with `o`; each chunk's decoded bytes, in file order.
std::vector<Bytes> write_mixed_run(const std::string& path, const fmt::WriterOptions& o, int n,
                                   fmt::WriterStats* stats) {
  auto w = fmt::RunWriter::create(path, o);
  REQUIRE(w.ok());
  for (int i = 0; i < n; ++i) {
    std::vector<float> values(64 * 1024 + i);
    tvis::synth::fill_activations(values.data(), values.size(), 3 + i, 0);
    fmt::ChunkInfo info;
    info.kind = uint16_t(fmt::ChunkKind::TensorData);
    info.filter = fmt::ChunkFilter::Shuffle4;
    info.step_first = info.step_last = i;
    CHECK(w.value()->append(info, fmt::make_tensor_data_chunk(reinterpret_cast<const uint8_t*>(values.data()),
                                                              values.size() * 4)) == uint32_t(2 * i));
    fmt::ChunkInfo table;
    table.kind = uint16_t(fmt::ChunkKind::Tensors);
    table.step_first = table.step_last = i;
    auto batch = std::make_shared<tvis::schema::TensorBatchT>();
    auto rec = std::make_unique<tvis::schema::TensorRecordT>();
    rec->id = uint64_t(i);
    rec->name = "t" + std::to_string(i);
    rec->data_chunk = uint32_t(2 * i);
    batch->tensors.push_back(std::move(rec));
    CHECK(w.value()->append_deferred(table, [batch] {
      flatbuffers::FlatBufferBuilder fbb;
      auto off = tvis::schema::TensorBatch::Pack(fbb, batch.get());
      tvis::schema::FinishChunkBuffer(fbb, tvis::schema::CreateChunk(fbb, tvis::schema::Body::TensorBatch,
                                                                     off.Union()));
      return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    }, 1) == uint32_t(2 * i + 1));
  }
  REQUIRE(w.value()->finalize().is_ok());
  *stats = w.value()->stats();
  auto reader = fmt::RunReader::open_sync(fmt::open_file_source(path).value());
  REQUIRE(reader.ok());
  CHECK(reader.value()->complete());
  std::vector<Bytes> chunks;
  for (uint32_t c = 0; c < reader.value()->chunks().size(); ++c) {
    auto d = reader.value()->read_chunk_sync(c);
    REQUIRE(d.ok());
    CHECK(d.value()->entry().info.kind ==
          (c % 2 ? uint16_t(fmt::ChunkKind::Tensors) : uint16_t(fmt::ChunkKind::TensorData)));
    chunks.push_back(d.value()->bytes());
  }
  return chunks;
}

}  // namespace

TEST_CASE("writer: past the memory bound chunks spill beside the run and the run is the same", "[writer]") {
  const std::string dir = tvis::test::temp_path("spill");
  ::mkdir(dir.c_str(), 0755);
  fmt::WriterStats kept, spilled;
  fmt::WriterOptions o;
  o.encoder_threads = 3;
  const auto in_memory = write_mixed_run(dir + "/memory.tvis", o, 12, &kept);
  CHECK(kept.spilled_chunks == 0);
  CHECK(kept.encoder_threads == 3);
  o.max_backlog_bytes = 0;  // every chunk goes through the spill file
  o.encoder_threads = 2;
  const auto through_spill = write_mixed_run(dir + "/spill.tvis", o, 12, &spilled);
  CHECK(spilled.spilled_chunks == 24);  // deferred tables are packed on the caller and spill too
  CHECK(spilled.spilled_bytes == spilled.raw_bytes);
  CHECK(spilled.peak_backlog_bytes == 0);  // nothing held in memory
  REQUIRE(in_memory.size() == 24);
  CHECK(through_spill == in_memory);
  // The spill file is unlinked as soon as it is opened: the folder holds the runs alone.
  std::set<std::string> names;
  for (auto* d = ::opendir(dir.c_str()); d;) {
    auto* e = ::readdir(d);
    if (!e) {
      ::closedir(d);
      break;
    }
    if (e->d_name[0] != '.') names.insert(e->d_name);
  }
  CHECK(names == std::set<std::string>{"memory.tvis", "spill.tvis"});
}

namespace {

// {thread id: nice value} of this process's threads, from /proc/self/task.
std::map<long, int> thread_nice_values() {
  std::map<long, int> out;
  auto* d = ::opendir("/proc/self/task");
  if (!d) return out;
  while (auto* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream f(std::string("/proc/self/task/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(f, line) || line.rfind(')') == std::string::npos) continue;
    std::istringstream rest(line.substr(line.rfind(')') + 2));  // from field 3 (state) on
    std::string field;
    for (int i = 3; i <= 19 && rest >> field; ++i)
      if (i == 19) out[std::atol(e->d_name)] = std::atoi(field.c_str());
  }
  ::closedir(d);
  return out;
}

// The nice values of the threads `options`' writer started, once each has set its own (polled for 5 s).
std::vector<int> writer_thread_nice(const std::string& path, fmt::WriterOptions options, int expected) {
  const auto before = thread_nice_values();
  auto w = fmt::RunWriter::create(path, options);
  REQUIRE(w.ok());
  std::vector<int> found;
  for (int tries = 0; tries < 500; ++tries) {
    found.clear();
    for (const auto& [tid, nice] : thread_nice_values())
      if (!before.count(tid)) found.push_back(nice);
    if (found.size() == size_t(options.encoder_threads + 1) &&
        std::all_of(found.begin(), found.end(), [&](int n) { return n == expected; }))
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(w.value()->finalize().is_ok());
  return found;
}

}  // namespace

TEST_CASE("writer: the encoder and I/O threads run below the caller's priority", "[writer]") {
  const std::string dir = tvis::test::temp_path("nice");
  ::mkdir(dir.c_str(), 0755);
  errno = 0;
  const int base = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
  REQUIRE(errno == 0);
  fmt::WriterOptions o;
  o.encoder_threads = 2;
  o.background_nice = 5;
  const int lowered = std::min(base + 5, 19);  // nice stops at 19
  CHECK(writer_thread_nice(dir + "/lowered.tvis", o, lowered) == std::vector<int>(3, lowered));
  o.background_nice = 0;  // kept at the caller's priority
  CHECK(writer_thread_nice(dir + "/kept.tvis", o, base) == std::vector<int>(3, base));
  CHECK(fmt::WriterOptions().background_nice == 19);  // the default: the lowest priority there is
}

TEST_CASE("writer: backpressure bounds the queue; stats add up; errors are reported", "[writer]") {
  const std::string path = tvis::test::temp_path("backpressure.tvis");
  fmt::WriterOptions o;
  o.max_backlog_bytes = 1 << 20;
  o.spill = false;  // append blocks for room (the spill path: the next test)
  auto w = fmt::RunWriter::create(path, o);
  REQUIRE(w.ok());
  std::vector<float> values(256 * 1024);
  tvis::synth::fill_activations(values.data(), values.size(), 3, 0);
  Bytes chunk = fmt::make_tensor_data_chunk(reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4);
  fmt::ChunkInfo info;
  info.kind = uint16_t(fmt::ChunkKind::TensorData);
  info.filter = fmt::ChunkFilter::Shuffle4;
  for (int i = 0; i < 20; ++i) CHECK(w.value()->append(info, chunk) == uint32_t(i));
  REQUIRE(w.value()->finalize().is_ok());
  CHECK(w.value()->finalize().is_ok());  // idempotent
  const fmt::WriterStats s = w.value()->stats();
  CHECK(s.chunks == 20);
  CHECK(s.raw_bytes == 20 * chunk.size());
  CHECK(s.backlog_bytes == 0);
  CHECK(s.peak_backlog_bytes <= o.max_backlog_bytes + chunk.size());
  CHECK(s.file_bytes == tvis::test::read_file(path).size());
  CHECK(s.file_bytes < s.raw_bytes);  // shuffled ReLU'd floats compress
  CHECK(w.value()->append(info, chunk) == UINT32_MAX);  // after finalize
  CHECK_FALSE(w.value()->error().is_ok());

  auto bad = fmt::RunWriter::create("/nonexistent-dir/run.tvis");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code == fmt::ErrorCode::Io);
  CHECK(bad.status().message.find("/nonexistent-dir/run.tvis") == 0);
}

TEST_CASE("writer: appends from several threads all land, each once, in ordinal order", "[writer]") {
  const std::string path = tvis::test::temp_path("threads.tvis");
  fmt::WriterOptions o;
  o.max_backlog_bytes = 64 * 1024;  // small: appends block and wake often
  auto w = fmt::RunWriter::create(path, o);
  REQUIRE(w.ok());
  constexpr int kThreads = 4, kPerThread = 50;
  std::vector<std::vector<uint32_t>> ordinals(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::vector<uint32_t> v(1000 + 37 * i, uint32_t(t * 1000 + i));
        fmt::ChunkInfo info;
        info.kind = uint16_t(fmt::ChunkKind::TensorData);
        info.filter = fmt::ChunkFilter::Shuffle4;
        info.step_first = t;
        info.step_last = i;
        ordinals[size_t(t)].push_back(
            w.value()->append(info, fmt::make_tensor_data_chunk(reinterpret_cast<const uint8_t*>(v.data()),
                                                                 v.size() * 4)));
      }
    });
  for (auto& th : threads) th.join();
  REQUIRE(w.value()->finalize().is_ok());
  std::set<uint32_t> all;
  for (const auto& v : ordinals) {
    CHECK(std::is_sorted(v.begin(), v.end()));  // one thread's chunks keep their order
    all.insert(v.begin(), v.end());
  }
  REQUIRE(all.size() == kThreads * kPerThread);
  CHECK(*all.rbegin() == kThreads * kPerThread - 1);
  auto r = fmt::RunReader::open_sync(fmt::open_file_source(path).value());
  REQUIRE(r.ok());
  REQUIRE(r.value()->chunks().size() == kThreads * kPerThread);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kPerThread; ++i) {
      const uint32_t ordinal = ordinals[size_t(t)][size_t(i)];
      CHECK(r.value()->chunks()[ordinal].info.step_first == t);
      CHECK(r.value()->chunks()[ordinal].info.step_last == i);
      auto c = r.value()->read_chunk_sync(ordinal);
      REQUIRE(c.ok());
      const auto* bytes = c.value()->root()->body_as_TensorData()->bytes();
      REQUIRE(bytes->size() == (1000 + 37 * size_t(i)) * 4);
      uint32_t first;
      std::memcpy(&first, bytes->data(), 4);
      CHECK(first == uint32_t(t * 1000 + i));
    }
}

TEST_CASE("writer: a full disk is reported naming the file", "[writer]") {
  auto w = fmt::RunWriter::create("/dev/full");
  REQUIRE_FALSE(w.ok());
  CHECK(w.status().code == fmt::ErrorCode::Io);
  CHECK(w.status().message.find("/dev/full: write failed: No space left on device") == 0);
}
