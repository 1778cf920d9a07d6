#include "tvis/format/chunk_pack.h"

#include <utility>

namespace tvis::format {

Bytes pack_chunk(const schema::ChunkT& chunk) {
  flatbuffers::FlatBufferBuilder fbb;
  schema::FinishChunkBuffer(fbb, schema::Chunk::Pack(fbb, &chunk));
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

Bytes pack_chunk(schema::BodyUnion body) {
  schema::ChunkT chunk;
  chunk.body = std::move(body);
  return pack_chunk(chunk);
}

}  // namespace tvis::format
