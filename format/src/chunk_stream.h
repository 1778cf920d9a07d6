// chunk_stream.h (internal): a chunk's payload decoded through a bounded
// window instead of into a buffer of its declared size. Used to check a chunk
// before that buffer is allocated (a payload that is not what its kind
// holds is refused without inflating it) and to verify chunks a caller does
// not keep (RunReader::verify_chunk).
#pragma once

#include <cstdint>
#include <string>

#include "tvis/format/container.h"
#include "tvis/format/error.h"

namespace tvis::format {

/// How many decoded bytes the head check sees (the FlatBuffer's root table,
/// its vtable and the body table's: a writer puts the tables first).
inline constexpr uint64_t kHeadBytes = 64 * 1024;

/// Decodes `entry`'s frame (data, size: its compressed payload) through a
/// window of at most the frame's window size plus one block, keeping only the
/// first kHeadBytes of the unshuffled bytes. With `whole`, decodes to the end
/// and requires exactly raw_size bytes; otherwise stops once the head is
/// complete. Then checks the head as the start of a `tvis.schema.Chunk`
/// FlatBuffer whose body type is `expected_body` (0: any): the root offset
/// and file identifier, the root table, its vtable and its body_type field
/// where they lie in the head. Corrupt (naming the chunk) when any fails.
Status stream_check_chunk(const ChunkEntry& entry, const uint8_t* data, uint64_t size, uint8_t expected_body,
                          bool whole);

}  // namespace tvis::format
