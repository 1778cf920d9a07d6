// chunk_body.h: the one place the viewer turns a chunk ordinal into its typed
// body (schema::EventBatch, SourceFiles, ...). Every index of the model reads
// chunks through read_body(); nothing else calls ChunkCache::get() and
// Chunk::body_as<>() itself.
//
// Contract: never waits. A chunk not resident is Loading (a read is in
// flight, or deferred by the frame's budget); a chunk whose read failed is
// Failed (remembered by the cache, never re-read). A Ready chunk whose root
// holds another body kind has body == nullptr.
#pragma once

#include <cstdint>

#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/chunk_cache.h"

namespace tvis::viewer {

enum class ChunkRead { Ready, Loading, Failed };

template <typename Body>
struct ChunkBody {
  ChunkCache::ChunkPtr chunk;  // keeps `body` valid while held
  const Body* body = nullptr;
  ChunkRead state = ChunkRead::Loading;
};

/// Chunk `ordinal` as a `Body`; `pin` keeps it resident once loaded.
template <typename Body>
ChunkBody<Body> read_body(ChunkCache& cache, uint32_t ordinal, bool pin = false) {
  ChunkBody<Body> out;
  if (cache.failure(ordinal)) {
    out.state = ChunkRead::Failed;
    return out;
  }
  out.chunk = pin ? cache.get_pinned(ordinal) : cache.get(ordinal);
  if (!out.chunk) return out;
  out.state = ChunkRead::Ready;
  out.body = out.chunk->root() ? out.chunk->root()->template body_as<Body>() : nullptr;
  return out;
}

}  // namespace tvis::viewer
