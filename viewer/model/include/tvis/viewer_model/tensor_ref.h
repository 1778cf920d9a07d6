// tensor_ref.h: one recorded tensor as the pages see it: plain values read
// through accessors, never the record's FlatBuffers table.
//
// Contract:
//   - A TensorRef holds the decoded chunk its record lives in, so it stays
//     valid as long as it is held, whatever the cache evicts meanwhile.
//   - An empty ref (`!ref`) answers nothing: call no accessor on it.
//   - Accessors copy (shape(), stats(), thumbnail_shape()) or return views
//     into the held chunk (name(), device(), thumbnail()) that live as long
//     as the ref.
//   - record() is for viewer/model's own code; viewer/src never calls it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tvis/viewer_model/chunk_cache.h"
#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/tensor_stats.h"

namespace tvis::viewer {

/// A tensor's dims, outermost first (empty: a 0-d tensor).
using Shape = std::vector<int64_t>;

/// What of a tensor's values its record kept, as a plain value.
struct KeptValues {
  ValuesKept kept = ValuesKept::None;
  int64_t kept_rows = 0;  // leading rows kept (ValuesKept::LeadingRows)
  int64_t rows = 0;       // the tensor's leading dimension; 0 for a 0-d tensor
};

/// A record's thumbnail: `values` row-major over `shape` (empty when none).
struct ThumbnailView {
  const float* values = nullptr;
  size_t size = 0;
  std::vector<int> shape;
};

class TensorRef {
 public:
  TensorRef() = default;
  TensorRef(ChunkCache::ChunkPtr chunk, const schema::TensorRecord* rec) : chunk_(std::move(chunk)), rec_(rec) {}
  explicit operator bool() const { return rec_ != nullptr; }

  uint64_t id() const;
  int64_t event() const;  // the call that recorded it; -1 for none
  TensorRole role() const;
  int slot() const;       // position among the call's inputs or outputs
  std::string_view name() const;
  int step() const;
  int sample() const;     // the followed sample; -1 for the whole tensor
  Shape shape() const;
  size_t rank() const;
  int64_t dim(size_t i) const;  // 0 past the last dim
  std::string shape_label() const;  // "[4, 3, 32, 32]"
  uint64_t element_count() const;   // 1 for a 0-d tensor; 0 when a dim is negative
  DType dtype() const;
  const char* dtype_label() const;  // "float32"
  std::string_view device() const;
  bool requires_grad() const;
  ValueKind value_kind() const;
  std::optional<TensorStats> stats() const;
  KeptValues kept() const;
  uint32_t data_chunk() const;  // the TensorData chunk holding the kept values
  ThumbnailView thumbnail() const;

  const schema::TensorRecord* record() const { return rec_; }
  const ChunkCache::ChunkPtr& chunk() const { return chunk_; }

 private:
  ChunkCache::ChunkPtr chunk_;  // keeps rec_ valid
  const schema::TensorRecord* rec_ = nullptr;
};

}  // namespace tvis::viewer
