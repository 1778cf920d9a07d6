#include "tvis/format/container_codec.h"

#include <xxhash.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "checksums.h"
#include "endian.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/chunk_limits.h"

namespace tvis::format {

namespace {
std::string at_offset(const char* what, uint64_t offset) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s at offset %" PRIu64, what, offset);
  return buf;
}
}  // namespace

void encode_file_header(const FileHeader& header, uint8_t out[kFileHeaderSize]) {
  std::memcpy(out, kFileMagic, 8);
  le::put16(out + 8, header.version_major);
  le::put16(out + 10, header.version_minor);
  le::put32(out + 12, header.flags);
}

Status decode_file_header(const uint8_t* data, uint64_t size, FileHeader* out) {
  if (size < kFileHeaderSize || std::memcmp(data, kFileMagic, 8) != 0) {
    if (size >= 8 && std::memcmp(data, kFileMagic, 8) == 0)
      return Status::error(ErrorCode::NotARun, "not a tvis run: file ends inside its 16-byte header");
    return Status::error(ErrorCode::NotARun, "not a tvis run: no tvis magic at offset 0");
  }
  FileHeader h;
  h.version_major = le::get16(data + 8);
  h.version_minor = le::get16(data + 10);
  h.flags = le::get32(data + 12);
  if (h.version_major > kVersionMajor) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "run file format %u.%u is newer than this tvis reads (%u.x); update tvis",
                  unsigned(h.version_major), unsigned(h.version_minor), unsigned(kVersionMajor));
    return Status::error(ErrorCode::NewerVersion, buf);
  }
  if (h.version_major < 1) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "run file format %u.%u predates the first released format (1.0)",
                  unsigned(h.version_major), unsigned(h.version_minor));
    return Status::error(ErrorCode::Corrupt, buf);
  }
  *out = h;
  return Status::ok();
}

void encode_chunk_header(const ChunkEntry& e, uint8_t out[kChunkHeaderSize]) {
  le::put32(out + 0, kChunkMagic);
  le::put16(out + 4, e.info.kind);
  out[6] = uint8_t(e.info.filter);
  out[7] = uint8_t(e.info.encoding);
  le::put32(out + 8, uint32_t(e.info.step_first));
  le::put32(out + 12, uint32_t(e.info.step_last));
  le::put64(out + 16, e.info.event_first);
  le::put64(out + 24, e.info.event_last);
  le::put32(out + 32, e.compressed_size);
  le::put32(out + 36, e.raw_size);
  le::put64(out + 40, e.payload_xxh64);
  le::put32(out + 48, uint32_t(XXH32(out, 48, 0)));
  le::put32(out + 52, e.ordinal);
}

Status decode_chunk_header(const uint8_t d[kChunkHeaderSize], uint64_t offset, ChunkEntry* out) {
  if (le::get32(d) != kChunkMagic)
    return Status::error(ErrorCode::Corrupt, at_offset("no chunk header (bad chunk magic)", offset));
  if (kEnforceChecksums && le::get32(d + 48) != uint32_t(XXH32(d, 48, 0)))
    return Status::error(ErrorCode::BadChecksum, at_offset("chunk header checksum mismatch", offset));
  ChunkEntry e;
  e.info.kind = le::get16(d + 4);
  e.info.filter = ChunkFilter(d[6]);
  e.info.encoding = ChunkEncoding(d[7]);
  e.info.step_first = int32_t(le::get32(d + 8));
  e.info.step_last = int32_t(le::get32(d + 12));
  e.info.event_first = le::get64(d + 16);
  e.info.event_last = le::get64(d + 24);
  e.compressed_size = le::get32(d + 32);
  e.raw_size = le::get32(d + 36);
  e.payload_xxh64 = le::get64(d + 40);
  e.ordinal = le::get32(d + 52);
  e.offset = offset;
  *out = e;
  return Status::ok();
}

Status check_chunk_sizes(const ChunkEntry& e, uint64_t file_size) {
  char buf[200];
  Status s = check_decoded_size(e);
  if (!s) return s;
  // offset <= file_size is checked first so the subtraction cannot wrap.
  if (e.offset > file_size || file_size - e.offset < kChunkHeaderSize + uint64_t(e.compressed_size)) {
    std::snprintf(buf, sizeof buf, "%s: %" PRIu64 " bytes extend past the end of the file (%" PRIu64 " bytes)",
                  describe_chunk(e).c_str(), kChunkHeaderSize + uint64_t(e.compressed_size), file_size);
    return Status::error(ErrorCode::Truncated, buf);
  }
  return Status::ok();
}

void encode_index_entry(const ChunkEntry& e, uint8_t out[kIndexEntrySize]) {
  le::put16(out + 0, e.info.kind);
  out[2] = uint8_t(e.info.filter);
  out[3] = uint8_t(e.info.encoding);
  le::put32(out + 4, uint32_t(e.info.step_first));
  le::put32(out + 8, uint32_t(e.info.step_last));
  le::put64(out + 12, e.info.event_first);
  le::put64(out + 20, e.info.event_last);
  le::put32(out + 28, 0);
  le::put64(out + 32, e.offset);
  le::put32(out + 40, e.compressed_size);
  le::put32(out + 44, e.raw_size);
  le::put64(out + 48, e.payload_xxh64);
  le::put32(out + 56, e.ordinal);
  le::put32(out + 60, 0);
}

ChunkEntry decode_index_entry(const uint8_t d[kIndexEntrySize]) {
  ChunkEntry e;
  e.info.kind = le::get16(d + 0);
  e.info.filter = ChunkFilter(d[2]);
  e.info.encoding = ChunkEncoding(d[3]);
  e.info.step_first = int32_t(le::get32(d + 4));
  e.info.step_last = int32_t(le::get32(d + 8));
  e.info.event_first = le::get64(d + 12);
  e.info.event_last = le::get64(d + 20);
  e.offset = le::get64(d + 32);
  e.compressed_size = le::get32(d + 40);
  e.raw_size = le::get32(d + 44);
  e.payload_xxh64 = le::get64(d + 48);
  e.ordinal = le::get32(d + 56);
  return e;
}

void encode_trailer(const Trailer& t, uint8_t out[kTrailerSize]) {
  le::put64(out + 0, t.footer_offset);
  le::put64(out + 8, t.footer_size);
  le::put32(out + 16, t.chunk_count);
  le::put32(out + 20, uint32_t(XXH32(out, 20, 0)));
  std::memcpy(out + 24, kTrailerMagic, 8);
}

Status decode_trailer(const uint8_t d[kTrailerSize], uint64_t file_size, Trailer* out) {
  if (std::memcmp(d + 24, kTrailerMagic, 8) != 0)
    return Status::error(ErrorCode::Corrupt, "no trailer at the end of the file");
  if (kEnforceChecksums && le::get32(d + 20) != uint32_t(XXH32(d, 20, 0)))
    return Status::error(ErrorCode::BadChecksum, "trailer checksum mismatch");
  Trailer t;
  t.footer_offset = le::get64(d + 0);
  t.footer_size = le::get64(d + 8);
  t.chunk_count = le::get32(d + 16);
  // The footer lies in [header end, trailer start) and ends at the trailer.
  if (file_size < kFileHeaderSize + kTrailerSize)
    return Status::error(ErrorCode::Corrupt, "file too short for a trailer");
  const uint64_t trailer_at = file_size - kTrailerSize;
  if (t.footer_offset < kFileHeaderSize ||
      t.footer_offset > trailer_at || t.footer_size < kChunkHeaderSize ||
      t.footer_size != trailer_at - t.footer_offset)
    return Status::error(ErrorCode::Corrupt, "trailer points to a footer outside the file");
  *out = t;
  return Status::ok();
}

std::string describe_chunk(const ChunkEntry& e) {
  char buf[128];
  if (e.info.kind == uint16_t(ChunkKind::Index))
    std::snprintf(buf, sizeof buf, "footer index at offset %" PRIu64, e.offset);
  else
    std::snprintf(buf, sizeof buf, "chunk %u (%s) at offset %" PRIu64, e.ordinal, chunk_kind_name(e.info.kind),
                  e.offset);
  return buf;
}

std::string format_bytes(uint64_t bytes) {
  char buf[32];
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%" PRIu64 " B", bytes);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace tvis::format
