// container_codec.h: encoding and decoding of the container's fixed-size
// structures (container.h gives the byte layout). Pure functions over byte
// arrays: no I/O, no allocation, no exceptions (the read half uses them in
// the browser; the writer, tests and the fuzzer's seed tools use them too).
//
// Decoders never trust their input: each says why a structure is rejected in
// a Status whose message names the structure and the byte offset passed in.
#pragma once

#include <cstdint>
#include <string>

#include "tvis/format/container.h"
#include "tvis/format/error.h"

namespace tvis::format {

/// Writes the 16-byte file header.
void encode_file_header(const FileHeader& header, uint8_t out[kFileHeaderSize]);

/// Reads a file header from the first `size` bytes of a file.
/// Fails with NotARun (too short, wrong magic) or NewerVersion (a major this
/// reader does not know; the message names both versions).
Status decode_file_header(const uint8_t* data, uint64_t size, FileHeader* out);

/// Writes a 56-byte chunk header for `entry` (offset is not stored in it),
/// computing header_xxh32.
void encode_chunk_header(const ChunkEntry& entry, uint8_t out[kChunkHeaderSize]);

/// Reads the chunk header found at file offset `offset`: checks the magic and
/// header_xxh32 (BadChecksum / Corrupt). Size fields are *not* checked here;
/// see check_chunk_sizes(). On success `out->offset` = `offset`.
Status decode_chunk_header(const uint8_t data[kChunkHeaderSize], uint64_t offset, ChunkEntry* out);

/// Checks an entry's sizes against the hard limits in container.h and what
/// its stored size can decode to (chunk_limits.h: check_decoded_size), both
/// TooLarge, and against a file of `file_size` bytes (Truncated): the header
/// and its payload must lie inside the file. Call before allocating for a chunk.
Status check_chunk_sizes(const ChunkEntry& entry, uint64_t file_size);

/// Writes / reads one 64-byte footer IndexEntry.
void encode_index_entry(const ChunkEntry& entry, uint8_t out[kIndexEntrySize]);
ChunkEntry decode_index_entry(const uint8_t data[kIndexEntrySize]);

/// The trailer's fields (container.h).
struct Trailer {
  uint64_t footer_offset = 0;
  uint64_t footer_size = 0;  // chunk header + payload
  uint32_t chunk_count = 0;  // not counting the footer
};
void encode_trailer(const Trailer& trailer, uint8_t out[kTrailerSize]);
/// Fails (Corrupt / BadChecksum) on a wrong magic or checksum, or a footer
/// that does not lie between the file header and the trailer of a file of
/// `file_size` bytes.
Status decode_trailer(const uint8_t data[kTrailerSize], uint64_t file_size, Trailer* out);

/// "chunk 12 (events) at offset 40960": how messages name a chunk.
std::string describe_chunk(const ChunkEntry& entry);

/// "3.2 MB": a byte count for messages (decimal units, one decimal).
std::string format_bytes(uint64_t bytes);

}  // namespace tvis::format
