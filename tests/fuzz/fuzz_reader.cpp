// fuzz_reader: libFuzzer target over the read half.
//
// An input that starts with the run-file magic is a whole file: it is opened
// from a memory source, every chunk is read, and the run is summarized.
// Any other input is a chunk body: byte 0 picks the chunk kind, the rest is
// the raw (decoded) payload; the harness wraps it in a valid one-chunk run
// (ChunkEncoder, footer, trailer) so the FlatBuffer verifier, the kind check
// and the summary see arbitrary bodies behind valid checksums.
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION (checksums.h), so
// mutated whole files also get past checksums into zstd and FlatBuffers.
// The size limits are the production ones (container.h, chunk_limits.h):
// run_fuzz.sh's malloc and RSS limits fail any input that makes the reader
// allocate what a chunk merely declares (tests/data/hostile/chunk_*.tvis are
// replayed under them).
#include <cstdint>
#include <cstring>
#include <vector>

#include "tvis/format/chunk_encoder.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/container_codec.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/run_summary.h"
#include "tvis/analysis/diagnose.h"
#include "tvis/analysis/run_diff.h"

namespace fmt = tvis::format;

namespace {

constexpr uint32_t kMaxFuzzDecode = 64u << 20;

void read_everything(fmt::Bytes file) {
  auto opened = fmt::RunReader::open_sync(fmt::make_memory_source(std::move(file), "fuzz"));
  if (!opened.ok()) return;
  fmt::RunReader& r = *opened.value();
  (void)fmt::summarize_run(r);  // stops at the first bad chunk: read the rest too
  tvis::analysis::RunFacts facts;  // what diagnose and diff take from every chunk that verifies
  for (uint32_t i = 0; i < r.chunks().size(); ++i) {
    // A tensor_data chunk may truly decode to 1 GiB of zeros (a legal run);
    // above kMaxFuzzDecode it is verified through the window, as inspect
    // does, so the malloc limit (run_fuzz.sh) catches only what a reader
    // allocates for what a file merely claims.
    if (r.chunks()[i].info.kind == uint16_t(fmt::ChunkKind::TensorData) && r.chunks()[i].raw_size > kMaxFuzzDecode) {
      (void)r.verify_chunk_sync(i);
      continue;
    }
    auto chunk = r.read_chunk_sync(i);
    if (chunk.ok() && tvis::analysis::RunFacts::wants(r.chunks()[i].info.kind)) facts.add_chunk(*chunk.value());
  }
  facts.finish();
  (void)tvis::analysis::diagnose(facts);
  (void)tvis::analysis::diagnose(std::vector<const tvis::analysis::RunFacts*>{&facts, &facts});  // the cross-rank checks
  (void)tvis::analysis::nothing_to_judge(facts);
  (void)tvis::analysis::diff_runs(facts, facts, {});
}

fmt::Bytes one_chunk_run(uint16_t kind, const uint8_t* body, size_t size) {
  fmt::Bytes file(fmt::kFileHeaderSize);
  fmt::encode_file_header(fmt::FileHeader{}, file.data());
  static fmt::ChunkEncoder encoder(1);
  fmt::ChunkInfo info;
  info.kind = kind;
  info.filter = (kind == uint16_t(fmt::ChunkKind::TensorData)) ? fmt::ChunkFilter::Shuffle4 : fmt::ChunkFilter::None;
  fmt::Bytes chunk;
  fmt::ChunkEntry entry;
  if (!encoder.encode(info, 0, body, size, &chunk, &entry).is_ok()) return {};
  entry.offset = file.size();
  file.insert(file.end(), chunk.begin(), chunk.end());
  fmt::Bytes index(8 + fmt::kIndexEntrySize, 0);
  index[0] = 1;
  fmt::encode_index_entry(entry, index.data() + 8);
  fmt::ChunkInfo footer_info;
  footer_info.kind = uint16_t(fmt::ChunkKind::Index);
  fmt::Bytes footer;
  fmt::ChunkEntry footer_entry;
  if (!encoder.encode(footer_info, 1, index.data(), index.size(), &footer, &footer_entry).is_ok()) return {};
  fmt::Trailer trailer{file.size(), footer.size(), 1};
  file.insert(file.end(), footer.begin(), footer.end());
  uint8_t tail[fmt::kTrailerSize];
  fmt::encode_trailer(trailer, tail);
  file.insert(file.end(), tail, tail + sizeof tail);
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 8 && std::memcmp(data, fmt::kFileMagic, 8) == 0) {
    read_everything(fmt::Bytes(data, data + size));
  } else if (size >= 1) {
    fmt::Bytes file = one_chunk_run(uint16_t(data[0] % 12), data + 1, size - 1);
    if (!file.empty()) read_everything(std::move(file));
  }
  return 0;
}
