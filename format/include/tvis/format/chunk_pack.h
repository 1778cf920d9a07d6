// chunk_pack.h: a chunk body in FlatBuffers' object API (schema::*T) to the
// raw bytes RunWriter::append takes (a finished `tvis.schema.Chunk` buffer
// with its file identifier). The one place writers serialize a body.
#pragma once

#include "tvis/format/byte_source.h"
#include "tvis/schema/recording_generated.h"

namespace tvis::format {

/// Serializes `chunk`; never fails (FlatBuffers aborts only past 2 GiB).
Bytes pack_chunk(const schema::ChunkT& chunk);

/// Serializes a chunk holding `body` (e.g. a schema::EventBatchT set on a
/// BodyUnion).
Bytes pack_chunk(schema::BodyUnion body);

}  // namespace tvis::format
