// XOR delta chunks (container.h: ChunkEncoding::XorDelta): the reader hands
// out the body the delta and its bases make, bit for bit, and refuses a
// crafted delta (its base missing, not earlier, of another size, not
// tensor_data, a chain past kMaxXorDeltaChain, a bad trailer, an encoding in
// a format 1 file) with a Corrupt status naming the chunk, never a crash.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>

#include "test_util.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/container.h"
#include "tvis/format/run_writer.h"
#include "tvis/format/tensor_data_chunk.h"
#include "tvis/schema/recording_generated.h"

namespace fmt = tvis::format;
using tvis::test::Bytes;

namespace {

/// n pseudo-random weights in [-0.05, 0.05), each times `scale` (an update).
Bytes values_chunk(float scale, size_t n = 4096) {
  std::vector<float> v(n);
  uint32_t x = 12345;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    v[i] = scale * (float(x >> 8) / float(1u << 24) - 0.5f) * 0.1f;
  }
  return fmt::make_tensor_data_chunk(reinterpret_cast<const uint8_t*>(v.data()), n * sizeof(float));
}

/// `body` XOR `base`, then the trailer naming `base_ordinal` (magic as given).
Bytes delta_of(const Bytes& body, const Bytes& base, uint32_t base_ordinal, uint32_t magic = fmt::kXorDeltaMagic) {
  Bytes d(body.size());
  for (size_t i = 0; i < body.size(); ++i) d[i] = uint8_t(body[i] ^ (i < base.size() ? base[i] : 0));
  for (int j = 0; j < 4; ++j) d.push_back(uint8_t(magic >> (8 * j)));
  for (int j = 0; j < 4; ++j) d.push_back(uint8_t(base_ordinal >> (8 * j)));
  for (int j = 0; j < 8; ++j) d.push_back(0);
  return d;
}

fmt::ChunkInfo data_info(fmt::ChunkEncoding enc = fmt::ChunkEncoding::Plain) {
  fmt::ChunkInfo info;
  info.kind = uint16_t(fmt::ChunkKind::TensorData);
  info.filter = fmt::ChunkFilter::Shuffle4;
  info.encoding = enc;
  return info;
}

/// A run written by the real writer: `fill` appends its chunks.
std::shared_ptr<fmt::RunReader> run_of(const std::string& name, const std::function<void(fmt::RunWriter&)>& fill,
                                       uint16_t major = fmt::kVersionMajor) {
  const std::string path = tvis::test::temp_path(name);
  auto w = fmt::RunWriter::create(path);
  REQUIRE(w.ok());
  fill(*w.value());
  REQUIRE(w.value()->finalize());
  Bytes file = tvis::test::read_file(path);
  file[8] = uint8_t(major);  // the file header carries no checksum
  file[9] = uint8_t(major >> 8);
  auto r = tvis::test::open_bytes(std::move(file));
  REQUIRE(r.ok());
  return r.value();
}

std::string refusal(fmt::RunReader& r, uint32_t ordinal) {
  auto c = r.read_chunk_sync(ordinal);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code == fmt::ErrorCode::Corrupt);
  CHECK_FALSE(r.verify_chunk_sync(ordinal).is_ok());
  return c.status().message;
}

}  // namespace

TEST_CASE("xor delta: a chain of deltas reads back each body bit for bit", "[format][xor_delta]") {
  const Bytes b0 = values_chunk(1.0f), b1 = values_chunk(1.0001f), b2 = values_chunk(1.0002f);
  auto r = run_of("delta_chain.tvis", [&](fmt::RunWriter& w) {
    CHECK(w.append(data_info(), b0) == 0);
    CHECK(w.append(data_info(fmt::ChunkEncoding::XorDelta), delta_of(b1, b0, 0)) == 1);
    CHECK(w.append(data_info(fmt::ChunkEncoding::XorDelta), delta_of(b2, b1, 1)) == 2);
  });
  CHECK(r->header().version_major == 2);
  CHECK(r->chunks()[2].info.encoding == fmt::ChunkEncoding::XorDelta);
  const Bytes* want[] = {&b0, &b1, &b2};
  for (uint32_t i = 0; i < 3; ++i) {
    auto c = r->read_chunk_sync(i);
    INFO((c.ok() ? std::string() : c.status().message));
    REQUIRE(c.ok());
    CHECK(c.value()->bytes() == *want[i]);
    REQUIRE(c.value()->root());
    CHECK(c.value()->root()->body_as_TensorData() != nullptr);
    CHECK(r->verify_chunk_sync(i).is_ok());
  }
  // Nearby floats XOR to mostly zero bytes: the delta stores far smaller.
  INFO(r->chunks()[1].compressed_size << " stored for the delta, " << r->chunks()[0].compressed_size << " whole");
  CHECK(r->chunks()[1].compressed_size * 2 < r->chunks()[0].compressed_size);
}

TEST_CASE("xor delta: crafted deltas are refused naming the chunk and why", "[format][xor_delta][hostile]") {
  const Bytes b0 = values_chunk(1.0f), b1 = values_chunk(1.001f);
  SECTION("base is not earlier: itself (a cycle), a later chunk, a missing one") {
    for (uint32_t base : {1u, 2u, 99u}) {
      auto r = run_of("delta_base_" + std::to_string(base) + ".tvis", [&](fmt::RunWriter& w) {
        w.append(data_info(), b0);
        w.append(data_info(fmt::ChunkEncoding::XorDelta), delta_of(b1, b0, base));
        w.append(data_info(), b1);
      });
      CHECK(refusal(*r, 1) == "chunk 1 (tensor_data) at offset " + std::to_string(r->chunks()[1].offset) +
                                  ": XOR delta base " + std::to_string(base) + " is not an earlier chunk of the run");
    }
  }
  SECTION("base of another size") {
    const Bytes small = values_chunk(1.0f, 1024);
    auto r = run_of("delta_size.tvis", [&](fmt::RunWriter& w) {
      w.append(data_info(), small);
      w.append(data_info(fmt::ChunkEncoding::XorDelta), delta_of(b1, small, 0));
    });
    CHECK_THAT(refusal(*r, 1), Catch::Contains("XOR delta of " + std::to_string(b1.size()) + " bytes against base") &&
                                   Catch::Contains("whose body is " + std::to_string(small.size()) + " bytes"));
  }
  SECTION("base is not tensor_data") {
    auto r = run_of("delta_kind.tvis", [&](fmt::RunWriter& w) {
      fmt::ChunkInfo meta;
      meta.kind = uint16_t(fmt::ChunkKind::RunMeta);
      w.append(meta, b0);  // never decoded: refused by its kind in the index
      w.append(data_info(fmt::ChunkEncoding::XorDelta), delta_of(b1, b0, 0));
    });
    CHECK_THAT(refusal(*r, 1), Catch::Contains("is not tensor_data"));
  }
  SECTION("a bad trailer") {
    auto r = run_of("delta_magic.tvis", [&](fmt::RunWriter& w) {
      w.append(data_info(), b0);
      w.append(data_info(fmt::ChunkEncoding::XorDelta), delta_of(b1, b0, 0, 0x12345678u));
    });
    CHECK_THAT(refusal(*r, 1), Catch::Contains("XOR delta chunk without its trailer"));
  }
  SECTION("a base that is itself refused") {
    auto r = run_of("delta_bad_base.tvis", [&](fmt::RunWriter& w) {
      w.append(data_info(), Bytes(b0.size(), 0xAB));  // not a FlatBuffer
      w.append(data_info(fmt::ChunkEncoding::XorDelta), delta_of(b1, b0, 0));
    });
    CHECK_THAT(refusal(*r, 1), Catch::StartsWith("chunk 1 (tensor_data)") &&
                                   Catch::Contains(": its XOR delta base: chunk 0 (tensor_data)") &&
                                   Catch::Contains("not a valid tvis FlatBuffer"));
  }
  SECTION("a chain longer than the reader follows") {
    const int n = fmt::kMaxXorDeltaChain + 2;
    auto r = run_of("delta_long.tvis", [&](fmt::RunWriter& w) {
      w.append(data_info(), b0);
      for (int i = 1; i < n; ++i) w.append(data_info(fmt::ChunkEncoding::XorDelta), delta_of(b0, b0, uint32_t(i - 1)));
    });
    CHECK(r->read_chunk_sync(uint32_t(fmt::kMaxXorDeltaChain)).ok());  // 64 bases below it: the limit
    CHECK_THAT(refusal(*r, uint32_t(n - 1)), Catch::Contains("XOR delta chain longer than 64 chunks"));
  }
  SECTION("an encoding on a chunk of records, an unknown encoding") {
    auto r = run_of("delta_records.tvis", [&](fmt::RunWriter& w) {
      w.append(data_info(), b0);
      fmt::ChunkInfo ev;
      ev.kind = uint16_t(fmt::ChunkKind::Events);
      ev.encoding = fmt::ChunkEncoding::XorDelta;
      w.append(ev, delta_of(b1, b0, 0));
      w.append(data_info(fmt::ChunkEncoding(7)), delta_of(b1, b0, 0));
    });
    CHECK_THAT(refusal(*r, 1), Catch::Contains("an XOR delta encoding on a chunk that is not tensor_data"));
    CHECK_THAT(refusal(*r, 2), Catch::Contains("unknown encoding 7"));
  }
  SECTION("an encoding in a format 1 file") {
    auto r = run_of(
        "delta_v1.tvis",
        [&](fmt::RunWriter& w) {
          w.append(data_info(), b0);
          w.append(data_info(fmt::ChunkEncoding::XorDelta), delta_of(b1, b0, 0));
        },
        1);
    CHECK(r->read_chunk_sync(0).ok());
    CHECK_THAT(refusal(*r, 1), Catch::Contains("chunk encoding 1 in a format 1 file"));
  }
}
