// make_hostile_chunks: writes the crafted run files that attack the
// container's read half (format/: chunk sizes, zstd frames, the footer) and
// the summaries built on it (tvis inspect, the run list of `tvis open`).
// Every file is a few kB to a few hundred kB; every chunk header and payload
// checksum is right, so nothing is refused before its sizes are judged.
//
//   chunk_huge_raw_size.tvis            an events chunk whose zstd frame really
//       decodes to 1 GiB of zeros (RLE blocks: 32 kB on disk); its header and
//       the frame agree on the size. Not a FlatBuffer.
//   chunk_huge_raw_size_shuffled.tvis   the same with a Shuffle4 filter (a
//       reader that unshuffles into a second buffer needs 2 GiB).
//   chunk_frame_claims_huge.tvis        a tensor_data chunk: header and frame
//       both claim 1 GiB; the frame's blocks hold 40 kB.
//   chunk_tensor_data_garbage.tvis      a tensor_data chunk (Shuffle4) whose
//       frame decodes to 1 GiB of zeros: not a FlatBuffer (its values could
//       be zeros, its root table cannot).
//   chunk_window_huge.tvis              a frame that is not single-segment and
//       asks for a 2 TiB window.
//   chunk_footer_huge.tvis              a complete run whose footer index
//       chunk claims 1 GiB (zeros) for its one entry.
//   chunk_tensor_data_zeros.tvis        a valid run: 8 tensor_data chunks, each
//       a verified FlatBuffer of 1 GiB of zero values (what a recorder with a
//       raised --max-elems writes for a 256 M-element zero tensor), 290 kB.
//   chunk_same_name_events.tvis         200,000 events whose name is one 1 MiB
//       string (one FlatBuffer string, 200,000 references: 210 GB to a
//       reader that copies the name per event, minutes for a 1 MB file).
//   chunk_shared_argv.tvis              a RunMeta whose argv is 20,000
//       references to one 64 kB string and whose notices are 20,000 tables
//       sharing it as code and message (1.3 GB per list to a reader that
//       copies them).
//
// Usage: make_hostile_chunks OUT_DIR. Deterministic for a given zstd (the
// footers and the last two files go through the real encoder); the first
// six frames are written block by block here. tests/data/hostile/chunk_*.tvis
// are its output.
#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tvis/format/chunk_encoder.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/container_codec.h"
#include "tvis/format/tensor_data_chunk.h"
#include "tvis/schema/recording_generated.h"

namespace {

namespace fmt = tvis::format;
namespace sc = tvis::schema;
using Bytes = std::vector<uint8_t>;

constexpr uint64_t kGiB = 1ull << 30;
constexpr uint32_t kBlock = 128 * 1024;  // zstd's largest block

void put_le(Bytes& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

// A zstd frame (RFC 8878) built from pieces: literal bytes go in raw blocks,
// runs of one byte in RLE blocks. `content_size` is what the frame header
// states (the pieces' total unless a test lies); `window_log` 0 writes a
// single-segment frame, otherwise a window descriptor of 2^window_log (what
// libzstd writes for a large chunk: a 128 KiB window by default here).
struct Frame {
  Bytes blocks;
  uint64_t total = 0;
  void literal(const uint8_t* p, size_t n) {
    while (n > 0) {
      const uint32_t k = uint32_t(std::min<size_t>(n, kBlock));
      put_le(blocks, uint64_t(k) << 3 | 0u << 1, 3);  // Raw_Block
      blocks.insert(blocks.end(), p, p + k);
      p += k, n -= k, total += k;
    }
  }
  void run(uint8_t byte, uint64_t n) {
    while (n > 0) {
      const uint32_t k = uint32_t(std::min<uint64_t>(n, kBlock));
      put_le(blocks, uint64_t(k) << 3 | 1u << 1, 3);  // RLE_Block
      blocks.push_back(byte);
      n -= k, total += k;
    }
  }
  Bytes finish(uint64_t content_size, int window_log = 17) const {
    Bytes out;
    put_le(out, 0xFD2FB528u, 4);
    if (window_log == 0) {
      out.push_back(uint8_t(3u << 6 | 1u << 5));  // 8-byte content size, single segment
    } else {
      out.push_back(uint8_t(3u << 6));
      out.push_back(uint8_t((window_log - 10) << 3));
    }
    put_le(out, content_size, 8);
    out.insert(out.end(), blocks.begin(), blocks.end());
    // Mark the last block.
    size_t at = out.size() - blocks.size(), last = at;
    while (at < out.size()) {
      last = at;
      const uint32_t h = out[at] | out[at + 1] << 8 | out[at + 2] << 16;
      const uint32_t type = (h >> 1) & 3, size = h >> 3;
      at += 3 + (type == 1 ? 1 : size);
    }
    if (!blocks.empty()) out[last] |= 1;
    return out;
  }
};

// A run file assembled chunk by chunk with honest checksums; the footer is
// encoded by the real encoder unless a test replaces it.
struct Run {
  Bytes file = Bytes(fmt::kFileHeaderSize);
  std::vector<fmt::ChunkEntry> entries;
  fmt::ChunkEncoder encoder{9};
  Run() { fmt::encode_file_header(fmt::FileHeader{}, file.data()); }

  void add_payload(fmt::ChunkKind kind, fmt::ChunkFilter filter, uint64_t raw_size, const Bytes& payload) {
    fmt::ChunkEntry e;
    e.info.kind = uint16_t(kind);
    e.info.filter = filter;
    e.ordinal = uint32_t(entries.size());
    e.offset = file.size();
    e.compressed_size = uint32_t(payload.size());
    e.raw_size = uint32_t(raw_size);
    e.payload_xxh64 = XXH64(payload.data(), payload.size(), 0);
    uint8_t h[fmt::kChunkHeaderSize];
    fmt::encode_chunk_header(e, h);
    file.insert(file.end(), h, h + sizeof h);
    file.insert(file.end(), payload.begin(), payload.end());
    entries.push_back(e);
  }
  void add_encoded(fmt::ChunkKind kind, const Bytes& raw) {
    fmt::ChunkInfo info;
    info.kind = uint16_t(kind);
    Bytes out;
    fmt::ChunkEntry e;
    if (!encoder.encode(info, uint32_t(entries.size()), raw.data(), raw.size(), &out, &e).is_ok()) std::abort();
    e.offset = file.size();
    file.insert(file.end(), out.begin(), out.end());
    entries.push_back(e);
  }
  Bytes index_body() const {
    Bytes body;
    put_le(body, entries.size(), 8);
    for (const auto& e : entries) {
      uint8_t b[fmt::kIndexEntrySize];
      fmt::encode_index_entry(e, b);
      body.insert(body.end(), b, b + sizeof b);
    }
    return body;
  }
  // Appends the footer (its payload given, or the index encoded) and the trailer.
  Bytes finish(const Bytes* footer_payload = nullptr, uint64_t footer_raw = 0) {
    const uint64_t footer_at = file.size();
    if (footer_payload) {
      add_payload(fmt::ChunkKind::Index, fmt::ChunkFilter::None, footer_raw, *footer_payload);
      entries.pop_back();  // the footer is not one of the chunks it indexes
    } else {
      fmt::ChunkInfo info;
      info.kind = uint16_t(fmt::ChunkKind::Index);
      const Bytes body = index_body();
      Bytes out;
      fmt::ChunkEntry e;
      if (!encoder.encode(info, uint32_t(entries.size()), body.data(), body.size(), &out, &e).is_ok()) std::abort();
      file.insert(file.end(), out.begin(), out.end());
    }
    fmt::Trailer t{footer_at, file.size() - footer_at, uint32_t(entries.size())};
    uint8_t tail[fmt::kTrailerSize];
    fmt::encode_trailer(t, tail);
    file.insert(file.end(), tail, tail + sizeof tail);
    return file;
  }
};

Bytes zeros_frame(uint64_t n) {
  Frame f;
  f.run(0, n);
  return f.finish(n);
}

Bytes finish_chunk(flatbuffers::FlatBufferBuilder& b, sc::Body type, flatbuffers::Offset<void> body) {
  sc::FinishChunkBuffer(b, sc::CreateChunk(b, type, body));
  return Bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

// A TensorData chunk of `values` zero bytes as one frame: the FlatBuffer's
// head (tables, the vector's length) as a raw block, the values as RLE.
// make_tensor_data_chunk puts the vector last, so its length can be raised.
Bytes tensor_data_zeros_frame(uint64_t values, uint64_t* raw_size) {
  const uint8_t sixteen[16] = {};
  Bytes small = fmt::make_tensor_data_chunk(sixteen, 16);
  const auto* td = sc::GetChunk(small.data())->body_as_TensorData();
  const size_t data_at = size_t(td->bytes()->data() - small.data());
  if (data_at + 16 != small.size()) std::abort();  // the vector must end the buffer
  Bytes head(small.begin(), small.begin() + data_at);
  const uint32_t n = uint32_t(values);
  std::memcpy(head.data() + data_at - 4, &n, 4);  // little-endian host
  Frame f;
  f.literal(head.data(), head.size());
  f.run(0, values);
  *raw_size = head.size() + values;
  return f.finish(*raw_size);
}

Bytes same_name_events(int count, size_t name_bytes) {
  flatbuffers::FlatBufferBuilder b(size_t(count) * 48 + name_bytes + 1024);
  const auto name = b.CreateString(std::string(name_bytes, 'm'));
  std::vector<flatbuffers::Offset<sc::Event>> events;
  events.reserve(size_t(count));
  for (int i = 0; i < count; ++i) {
    sc::EventBuilder e(b);
    e.add_id(uint64_t(i));
    e.add_kind(sc::EventKind::ModuleCall);
    e.add_name(name);
    events.push_back(e.Finish());
  }
  return finish_chunk(b, sc::Body::EventBatch, sc::CreateEventBatch(b, b.CreateVector(events)).Union());
}

Bytes shared_argv_meta_chunk(int count, size_t text_bytes) {
  flatbuffers::FlatBufferBuilder b;
  const auto text = b.CreateString(std::string(text_bytes, 'a'));
  const auto script = b.CreateString("train.py");
  std::vector<flatbuffers::Offset<sc::Notice>> notice_tables;
  notice_tables.reserve(size_t(count));
  for (int i = 0; i < count; ++i) notice_tables.push_back(sc::CreateNotice(b, text, text));
  const std::vector<flatbuffers::Offset<flatbuffers::String>> argv(size_t(count), text);
  const auto argv_vec = b.CreateVector(argv);
  const auto notices_vec = b.CreateVector(notice_tables);
  sc::RunMetaBuilder m(b);
  m.add_script(script);
  m.add_argv(argv_vec);
  m.add_notices(notices_vec);
  m.add_started_unix_ms(1767225600000);
  m.add_steps_recorded(1);
  return finish_chunk(b, sc::Body::RunMeta, m.Finish().Union());
}

bool write(const std::string& dir, const char* name, const Bytes& bytes) {
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0) {
    std::fprintf(stderr, "make_hostile_chunks: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_hostile_chunks OUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;
  {
    Run r;
    r.add_payload(fmt::ChunkKind::Events, fmt::ChunkFilter::None, kGiB, zeros_frame(kGiB));
    ok &= write(dir, "chunk_huge_raw_size.tvis", r.finish());
  }
  {
    Run r;
    r.add_payload(fmt::ChunkKind::Events, fmt::ChunkFilter::Shuffle4, kGiB, zeros_frame(kGiB));
    ok &= write(dir, "chunk_huge_raw_size_shuffled.tvis", r.finish());
  }
  {
    Run r;
    Frame f;
    const Bytes literal(40 * 1024, 0x5a);
    f.literal(literal.data(), literal.size());
    r.add_payload(fmt::ChunkKind::TensorData, fmt::ChunkFilter::None, kGiB, f.finish(kGiB));
    ok &= write(dir, "chunk_frame_claims_huge.tvis", r.finish());
  }
  {
    Run r;
    r.add_payload(fmt::ChunkKind::TensorData, fmt::ChunkFilter::Shuffle4, kGiB, zeros_frame(kGiB));
    ok &= write(dir, "chunk_tensor_data_garbage.tvis", r.finish());
  }
  {
    Run r;
    Frame f;
    f.run(0, 1024);
    r.add_payload(fmt::ChunkKind::Events, fmt::ChunkFilter::None, 1024, f.finish(1024, 41));
    ok &= write(dir, "chunk_window_huge.tvis", r.finish());
  }
  {
    Run r;
    r.add_encoded(fmt::ChunkKind::Events, same_name_events(1, 8));
    const Bytes footer = zeros_frame(kGiB);
    ok &= write(dir, "chunk_footer_huge.tvis", r.finish(&footer, kGiB));
  }
  {
    Run r;
    for (int i = 0; i < 8; ++i) {
      uint64_t raw = 0;
      const Bytes frame = tensor_data_zeros_frame(kGiB - 4096, &raw);
      r.add_payload(fmt::ChunkKind::TensorData, fmt::ChunkFilter::None, raw, frame);
    }
    ok &= write(dir, "chunk_tensor_data_zeros.tvis", r.finish());
  }
  {
    Run r;
    r.add_encoded(fmt::ChunkKind::Events, same_name_events(200000, 1 << 20));
    ok &= write(dir, "chunk_same_name_events.tvis", r.finish());
  }
  {
    Run r;
    r.add_encoded(fmt::ChunkKind::RunMeta, shared_argv_meta_chunk(20000, 64 * 1024));
    ok &= write(dir, "chunk_shared_argv.tvis", r.finish());
  }
  return ok ? 0 : 1;
}
