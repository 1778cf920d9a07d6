// 8-byte vectors ([long], [ulong], [double]) whose elements are not 8-byte
// aligned pass FlatBuffers' verifier; the reader refuses them by name, and
// its list of such fields is the schema's.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "test_util.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_writer.h"
#include "tvis/schema/recording_generated.h"
#include "wide_vector_alignment.h"

namespace fmt = tvis::format;
namespace schema = tvis::schema;
using tvis::test::Bytes;

namespace {

// Every `field: [long|ulong|double]` of schema/recording.fbs, as "Table.field".
std::set<std::string> wide_vector_fields_of_schema() {
  std::ifstream in(std::string(TVIS_SCHEMA_FILE));
  REQUIRE(in.good());
  std::set<std::string> fields;
  const std::regex table(R"(^\s*table\s+(\w+))"), field(R"(^\s*(\w+)\s*:\s*\[\s*(long|ulong|double|int64|uint64|float64)\s*\])");
  std::string line, current;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, table)) current = m[1];
    else if (std::regex_search(line, m, field)) fields.insert(current + "." + std::string(m[1]));
  }
  return fields;
}

// An EventBatch of one Event whose only field is `inputs`. With `shift`, the
// buffer is rebuilt 4 bytes later (root offset and identifier in place): every relative offset still holds and all
// 4-byte alignment is kept, but the 8-byte elements land at 4 mod 8.
Bytes event_batch(bool shift) {
  flatbuffers::FlatBufferBuilder b;
  const uint64_t ids[] = {7, 8, 9};
  auto inputs = b.CreateVector(ids, 3);
  schema::EventBuilder e(b);
  e.add_inputs(inputs);
  auto event = e.Finish();
  auto batch = schema::CreateEventBatch(b, b.CreateVector(&event, 1));
  schema::FinishChunkBuffer(b, schema::CreateChunk(b, schema::Body::EventBatch, batch.Union()));
  Bytes plain(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  if (!shift) return plain;
  Bytes shifted(plain.size() + 4, 0);
  const uint32_t root = flatbuffers::ReadScalar<uint32_t>(plain.data()) + 4;
  flatbuffers::WriteScalar(shifted.data(), root);
  std::copy(plain.begin() + 4, plain.begin() + 8, shifted.begin() + 4);  // the file identifier stays at 4
  std::copy(plain.begin() + 4, plain.end(), shifted.begin() + 8);
  return shifted;
}

fmt::Status read_back(Bytes body) {
  const std::string path = tvis::test::temp_path(std::string("wide_") + std::to_string(body.size()) + ".tvis");
  auto writer = fmt::RunWriter::create(path);
  REQUIRE(writer.ok());
  fmt::ChunkInfo info;
  info.kind = uint16_t(fmt::ChunkKind::Events);
  writer.value()->append(info, std::move(body));
  REQUIRE(writer.value()->finalize().is_ok());
  auto reader = tvis::test::open_bytes(tvis::test::read_file(path));
  REQUIRE(reader.ok());
  auto chunk = reader.value()->read_chunk_sync(0);
  return chunk.ok() ? fmt::Status::ok() : chunk.status();
}

}  // namespace

TEST_CASE("the reader's list of 8-byte vectors is exactly the schema's", "[wide_vectors]") {
  const std::set<std::string> listed(std::begin(fmt::kWideVectorFields), std::end(fmt::kWideVectorFields));
  CHECK(listed == wide_vector_fields_of_schema());
}

TEST_CASE("a misaligned [ulong] passes the verifier's checks and is refused by name", "[wide_vectors]") {
  CHECK(read_back(event_batch(false)).is_ok());
  const fmt::Status s = read_back(event_batch(true));
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.code == fmt::ErrorCode::Corrupt);
  CHECK_THAT(s.message, Catch::Contains("Event.inputs is not 8-byte aligned"));
}
