// Live runs: a run file that grows chunk by chunk while a reader holds it
// (RunReader::grow over the file source's recheck_size). The reference is
// the complete file's own index, read by a fresh open: each grow must hold
// exactly the chunks that are whole on disk, read only the new bytes, and
// end complete once the footer and trailer are written. A file that shrinks
// or is replaced is refused with a message saying so.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "test_util.h"
#include "tvis/format/container.h"

namespace fmt = tvis::format;
using tvis::test::Bytes;

namespace {

fmt::Result<std::shared_ptr<fmt::RunReader>> grow_sync(fmt::RunReader& reader) {
  fmt::Result<std::shared_ptr<fmt::RunReader>> out = fmt::Status::error(fmt::ErrorCode::Io, "no answer");
  bool called = false;
  reader.grow([&](fmt::Result<std::shared_ptr<fmt::RunReader>> r) {
    called = true;
    out = std::move(r);
  });
  REQUIRE(called);  // a file source answers at once
  return out;
}

// Appends bytes [from, to) of `run` to the file at `path`.
void append(const std::string& path, const Bytes& run, uint64_t from, uint64_t to) {
  FILE* f = std::fopen(path.c_str(), "ab");
  REQUIRE(f);
  REQUIRE(std::fwrite(run.data() + from, 1, to - from, f) == to - from);
  std::fclose(f);
}

uint64_t end_of(const fmt::ChunkEntry& c) { return c.offset + fmt::kChunkHeaderSize + c.compressed_size; }

bool same(const fmt::ChunkEntry& a, const fmt::ChunkEntry& b) {
  return a.offset == b.offset && a.ordinal == b.ordinal && a.info.kind == b.info.kind &&
         a.compressed_size == b.compressed_size && a.payload_xxh64 == b.payload_xxh64;
}

struct GrowingFile {
  Bytes run;                              // the complete file
  std::vector<fmt::ChunkEntry> chunks;    // its index, from a fresh open
  std::string path;
  std::shared_ptr<fmt::RunReader> reader; // opened on the first `first_bytes`
};

GrowingFile start_growing(const std::string& name, uint64_t first_bytes) {
  GrowingFile g;
  g.run = tvis::test::tiny_run(3);
  auto full = tvis::test::open_bytes(g.run);
  REQUIRE(full.ok());
  REQUIRE(full.value()->complete());
  g.chunks = full.value()->chunks();
  REQUIRE(g.chunks.size() >= 4);
  g.path = tvis::test::temp_path(name);
  std::remove(g.path.c_str());
  append(g.path, g.run, 0, first_bytes);
  auto src = fmt::open_file_source(g.path);
  REQUIRE(src.ok());
  auto r = fmt::RunReader::open_sync(src.value());
  REQUIRE(r.ok());
  g.reader = r.value();
  return g;
}

}  // namespace

TEST_CASE("a growing run: each grow holds the whole chunks on disk, reads only new bytes, ends complete",
          "[format][live]") {
  // Open with the first chunk and half of the second written.
  const uint64_t first = end_of(tvis::test::open_bytes(tvis::test::tiny_run(3)).value()->chunks()[0]);
  GrowingFile g = start_growing("growing.tvis", first + 30);
  REQUIRE_FALSE(g.reader->complete());
  REQUIRE(g.reader->chunks().size() == 1);
  CHECK(g.reader->size_seen() == first + 30);

  // Nothing new on disk: the same reader, no chunk read.
  {
    const uint64_t before = g.reader->source().bytes_read();
    auto same_reader = grow_sync(*g.reader);
    REQUIRE(same_reader.ok());
    CHECK(same_reader.value() == g.reader);
    CHECK(g.reader->source().bytes_read() == before);
  }

  uint64_t written = first + 30;
  for (size_t k = 1; k < g.chunks.size(); ++k) {
    INFO("appending chunk " << k);
    const uint64_t end = end_of(g.chunks[k]);
    // Half a chunk more, then the rest: the torn one is not taken.
    const uint64_t half = written + (end - written) / 2;
    append(g.path, g.run, written, half);
    auto torn = grow_sync(*g.reader);
    REQUIRE(torn.ok());
    CHECK(torn.value()->chunks().size() == k);
    g.reader = torn.value();
    append(g.path, g.run, half, end);
    written = end;
    const std::shared_ptr<fmt::RunReader> old = g.reader;
    const size_t old_count = old->chunks().size();
    const uint64_t before = old->source().bytes_read();
    auto grown = grow_sync(*old);
    REQUIRE(grown.ok());
    const auto& now = grown.value()->chunks();
    REQUIRE(now.size() == k + 1);
    for (size_t i = 0; i < now.size(); ++i) CHECK(same(now[i], g.chunks[i]));
    CHECK_FALSE(grown.value()->complete());
    CHECK(grown.value()->recovery_notice().find("recovered " + std::to_string(k + 1) + " chunks") !=
          std::string::npos);
    // Only headers: the last known chunk's again, the new one's, and the probe past it (or the trailer).
    CHECK(old->source().bytes_read() - before <= 3 * fmt::kChunkHeaderSize + fmt::kTrailerSize);
    CHECK(old->chunks().size() == old_count);  // the old reader is unchanged and still valid
    auto chunk = grown.value()->read_chunk_sync(uint32_t(k));
    CHECK(chunk.ok());
    g.reader = grown.value();
  }

  // The writer finishes: footer and trailer.
  append(g.path, g.run, written, g.run.size());
  auto done = grow_sync(*g.reader);
  REQUIRE(done.ok());
  CHECK(done.value()->complete());
  CHECK(done.value()->recovery_notice().empty());
  REQUIRE(done.value()->chunks().size() == g.chunks.size());
  for (size_t i = 0; i < g.chunks.size(); ++i) CHECK(same(done.value()->chunks()[i], g.chunks[i]));
  // A complete run does not grow: the same reader.
  auto again = grow_sync(*done.value());
  REQUIRE(again.ok());
  CHECK(again.value() == done.value());
}

TEST_CASE("a growing run that shrinks or is replaced is refused, saying so", "[format][live]") {
  const uint64_t two = end_of(tvis::test::open_bytes(tvis::test::tiny_run(3)).value()->chunks()[1]);

  SECTION("shrinks") {
    GrowingFile g = start_growing("shrinks.tvis", two);
    REQUIRE(::truncate(g.path.c_str(), off_t(two - 10)) == 0);
    auto r = grow_sync(*g.reader);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code == fmt::ErrorCode::Truncated);
    CHECK(r.status().message.find("shrank from " + std::to_string(two) + " to " + std::to_string(two - 10)) !=
          std::string::npos);
  }
  SECTION("replaced by another file under the same path") {
    GrowingFile g = start_growing("replaced.tvis", two);
    const std::string other = g.path + ".new";
    tvis::test::write_file(other, g.run);
    REQUIRE(std::rename(other.c_str(), g.path.c_str()) == 0);
    auto r = grow_sync(*g.reader);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message.find("replaced") != std::string::npos);
  }
  SECTION("rewritten in place with other chunks") {
    GrowingFile g = start_growing("rewritten.tvis", two);
    Bytes bytes = tvis::test::read_file(g.path);
    bytes[g.chunks[1].offset + 40] ^= 0x5A;  // the last known chunk's payload checksum field
    bytes.insert(bytes.end(), g.run.begin() + long(two), g.run.begin() + long(end_of(g.chunks[2])));
    tvis::test::write_file(g.path, bytes);  // same file (truncated and rewritten), grown
    auto r = grow_sync(*g.reader);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code == fmt::ErrorCode::Corrupt);
    CHECK(r.status().message.find("the run file was replaced (chunk 1") != std::string::npos);
  }
  SECTION("finished as another run: its index does not list the chunks read before") {
    GrowingFile g = start_growing("finished_other.tvis", two);
    Bytes other = tvis::test::tiny_run(4);  // a longer run: the footer's chunks differ past the first ones
    auto o = tvis::test::open_bytes(other);
    REQUIRE(o.ok());
    const auto& oc = o.value()->chunks();
    REQUIRE_FALSE((same(oc[0], g.chunks[0]) && same(oc[1], g.chunks[1])));  // else it would be the same run grown
    tvis::test::write_file(g.path, other);
    auto r = grow_sync(*g.reader);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message.find("replaced") != std::string::npos);
  }
}
