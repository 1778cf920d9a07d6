// Hostile and damaged files: every truncation point, every flipped byte, a
// writer that never finalized. Nothing may crash; each outcome is either a
// recovered run or a clean error that names the problem.
#include <catch2/catch.hpp>

#include "test_util.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/container_codec.h"
#include "tvis/format/run_summary.h"
#include "tvis/format/run_writer.h"

namespace fmt = tvis::format;
using tvis::test::Bytes;

namespace {

// Where each byte of a complete run belongs.
enum class Region { FileMagic, Version, HeaderRest, ChunkHeader, ChunkOrdinal, Payload, Footer, Trailer };

std::vector<Region> regions_of(const Bytes& run, const std::vector<fmt::ChunkEntry>& chunks) {
  std::vector<Region> r(run.size(), Region::Footer);
  for (size_t i = 0; i < 8; ++i) r[i] = Region::FileMagic;
  for (size_t i = 8; i < 10; ++i) r[i] = Region::Version;
  for (size_t i = 10; i < 16; ++i) r[i] = Region::HeaderRest;  // minor and reserved flags
  for (const auto& c : chunks) {
    for (uint64_t i = 0; i < fmt::kChunkHeaderSize; ++i)
      r[c.offset + i] = i >= 52 ? Region::ChunkOrdinal : Region::ChunkHeader;
    for (uint64_t i = 0; i < c.compressed_size; ++i) r[c.offset + fmt::kChunkHeaderSize + i] = Region::Payload;
  }
  for (uint64_t i = run.size() - fmt::kTrailerSize; i < run.size(); ++i) r[i] = Region::Trailer;
  return r;
}

}  // namespace

TEST_CASE("truncation at every byte offset: recovered or refused, never a crash", "[robustness]") {
  const Bytes run = tvis::test::tiny_run(1);
  auto full = tvis::test::open_bytes(run);
  REQUIRE(full.ok());
  const auto chunks = full.value()->chunks();
  for (uint64_t len = 0; len < run.size(); ++len) {
    INFO("truncated to " << len << " of " << run.size() << " bytes");
    auto r = tvis::test::open_bytes(Bytes(run.begin(), run.begin() + long(len)));
    if (len < fmt::kFileHeaderSize) {
      REQUIRE_FALSE(r.ok());
      CHECK(r.status().code == fmt::ErrorCode::NotARun);
      continue;
    }
    REQUIRE(r.ok());
    CHECK_FALSE(r.value()->complete());
    // Exactly the chunks that fit whole are recovered.
    size_t whole = 0;
    while (whole < chunks.size() &&
           chunks[whole].offset + fmt::kChunkHeaderSize + chunks[whole].compressed_size <= len)
      ++whole;
    CHECK(r.value()->chunks().size() == whole);
    CHECK(r.value()->recovery_notice().find("recovered " + std::to_string(whole) + " chunks") != std::string::npos);
    auto s = fmt::summarize_run(*r.value());
    REQUIRE(s.ok());
    CHECK_FALSE(s.value().complete);
    CHECK(s.value().notices.at(0) == r.value()->recovery_notice());
  }
}

TEST_CASE("a flipped byte at every offset: caught or harmless, never a crash", "[robustness]") {
  const Bytes run = tvis::test::tiny_run(1);
  auto full = tvis::test::open_bytes(run);
  REQUIRE(full.ok());
  const auto chunks = full.value()->chunks();
  const auto regions = regions_of(run, chunks);
  for (uint8_t pattern : {uint8_t(0xFF), uint8_t(0x01)}) {
    for (size_t at = 0; at < run.size(); ++at) {
      INFO("byte " << at << " xor " << int(pattern) << ", region " << int(regions[at]));
      Bytes bad = run;
      bad[at] ^= pattern;
      auto r = tvis::test::open_bytes(bad);
      fmt::Result<fmt::RunSummary> s = fmt::Status::error(fmt::ErrorCode::Io, "not opened");
      if (r.ok()) s = fmt::summarize_run(*r.value());
      const fmt::Status failure = !r.ok() ? r.status() : !s.ok() ? s.status() : fmt::Status::ok();
      switch (regions[at]) {
        case Region::FileMagic:
          REQUIRE_FALSE(r.ok());
          CHECK(r.status().code == fmt::ErrorCode::NotARun);
          break;
        case Region::Version:  // major 1 becomes 0 or > 1: refused either way
          REQUIRE_FALSE(r.ok());
          CHECK((r.status().code == fmt::ErrorCode::NewerVersion || r.status().code == fmt::ErrorCode::Corrupt));
          break;
        case Region::HeaderRest:  // minor version and reserved flags: still readable
          REQUIRE(s.ok());
          CHECK(s.value().complete);
          break;
        case Region::ChunkHeader:
        case Region::ChunkOrdinal:
          REQUIRE(r.ok());
          REQUIRE_FALSE(s.ok());
          CHECK(failure.message.find("chunk ") == 0);
          break;
        case Region::Payload:
          REQUIRE(r.ok());
          REQUIRE_FALSE(s.ok());
          CHECK(failure.code == fmt::ErrorCode::BadChecksum);
          CHECK(failure.message.find("payload checksum mismatch") != std::string::npos);
          break;
        case Region::Footer:
        case Region::Trailer:
          // The index is rebuilt by scanning: every chunk is still there.
          REQUIRE(r.ok());
          CHECK_FALSE(r.value()->complete());
          CHECK(r.value()->chunks().size() == chunks.size());
          CHECK(s.ok());
          break;
      }
      if (!failure.is_ok()) {
        CHECK_FALSE(failure.message.empty());
        CHECK(failure.message.find('\n') == std::string::npos);
      }
    }
  }
}

TEST_CASE("a writer destroyed without finalize leaves a recoverable run", "[robustness][recovery]") {
  const std::string path = tvis::test::temp_path("killed.tvis");
  tvis::synth::SynthOptions o;
  o.steps = 2;
  o.tiny = true;
  o.finalize = false;
  auto report = tvis::synth::write_synthetic_run(path, o);
  REQUIRE(report.ok());
  auto src = fmt::open_file_source(path);
  REQUIRE(src.ok());
  auto r = fmt::RunReader::open_sync(src.value());
  REQUIRE(r.ok());
  CHECK_FALSE(r.value()->complete());
  CHECK(r.value()->chunks().size() == report.value().chunks);
  const std::string notice = r.value()->recovery_notice();
  CHECK(notice.find("footer missing: recovered " + std::to_string(report.value().chunks) + " chunks") == 0);
  CHECK(notice.find("by scanning to the end of the file") != std::string::npos);
  auto s = fmt::summarize_run(*r.value());
  REQUIRE(s.ok());
  CHECK(s.value().steps == 2);  // counted from optimizer steps: no final RunMeta
  CHECK(s.value().losses == report.value().losses);
  CHECK(s.value().events == report.value().events);

  SECTION("a torn last chunk is dropped and the notice says where the scan stopped") {
    Bytes bytes = tvis::test::read_file(path);
    const auto& last = r.value()->chunks().back();
    bytes.resize(last.offset + fmt::kChunkHeaderSize + last.compressed_size / 2);
    auto torn = tvis::test::open_bytes(bytes);
    REQUIRE(torn.ok());
    CHECK(torn.value()->chunks().size() == report.value().chunks - 1);
    CHECK(torn.value()->recovery_notice().find("; stopped at offset " + std::to_string(last.offset) + ": chunk " +
                                               std::to_string(last.ordinal)) != std::string::npos);
  }
}
