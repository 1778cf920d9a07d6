// tensor_index.h: the run's tensor records (shapes, dtypes, statistics) and
// their values, found lazily through the chunk cache.
//
// Tensors chunks carry step ranges only (no event ranges), so the records of
// an event are found by indexing the Tensors chunks whose step range holds
// the event's step, once each, as they arrive. Values live in TensorData
// chunks and are decoded only for the tensor a page shows.
//
// Contracts:
//   - Nothing blocks: a lookup whose chunk is not resident returns what is
//     known, sets *complete = false and leaves a read in flight.
//   - A TensorRef keeps its chunk alive (shared_ptr), so its record pointer
//     stays valid while the ref is held, even if the cache evicts the chunk.
//   - decode_values() treats the record as hostile: offsets and sizes are
//     checked against the chunk and the shape before anything is read.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tvis/viewer_model/chunk_body.h"
#include "tvis/viewer_model/chunk_cache.h"
#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/tensor_ref.h"

namespace tvis::viewer {

class RunModel;

/// A tensor's kept values as doubles, row-major, with the shape they have
/// (dim 0 is kept_rows for LeadingRows records).
struct TensorValues {
  std::vector<double> values;
  std::vector<int64_t> shape;
  bool partial = false;  // only the leading rows were kept
};

/// What of its values `rec` kept (TensorRef::kept for a ref).
KeptValues kept_values(const schema::TensorRecord& rec);

/// Tensors chunks a frame may start indexing (TensorIndex::begin_frame);
/// the App starts every frame with it, whatever page draws.
inline constexpr int kTensorChunkLoadsPerFrame = 2;

class TensorIndex {
 public:
  void reset();
  /// Starts a frame: from now on at most `chunk_loads` Tensors chunks not yet
  /// indexed are requested per frame (a synchronous source decodes them in the
  /// call), so opening a step of 10^5 records spreads over frames. Without
  /// begin_frame() calls there is no limit.
  void begin_frame(int chunk_loads) { load_budget_ = chunk_loads; }
  /// True once every Tensors chunk that may hold `step` is indexed (or failed);
  /// until then requests them (within the frame's load budget). O(1) after.
  bool ready(RunModel& model, int step);
  /// Records of event `event` (recorded at `step`), in file order.
  std::vector<TensorRef> for_event(RunModel& model, uint64_t event, int step, bool* complete);
  /// The record with tensor id `id` (looked for among chunks holding `step`,
  /// or every Tensors chunk when step is INT32_MIN).
  TensorRef by_id(RunModel& model, uint64_t id, int step, bool* complete);
  /// The kept values of `rec`: Loading while its TensorData chunk is read;
  /// otherwise Ready with *error "" (values in *out) or a one-line reason
  /// (statistics only, not a tensor data chunk, the chunk's read failure,
  /// a record out of range).
  ChunkRead read_values(RunModel& model, const schema::TensorRecord& rec, TensorValues* out, std::string* error);
  ChunkRead read_values(RunModel& model, const TensorRef& ref, TensorValues* out, std::string* error) {
    return read_values(model, *ref.record(), out, error);
  }

 private:
  struct Loc {
    uint32_t ordinal;
    uint32_t index;
  };
  // Indexes the Tensors chunks that may hold `step`; false while some load.
  bool index_step(RunModel& model, int step);
  TensorRef resolve(RunModel& model, Loc loc, bool* complete);

  int load_budget_ = INT32_MAX;
  std::unordered_set<uint32_t> indexed_;
  std::unordered_set<int> ready_steps_;
  std::unordered_map<uint64_t, std::vector<Loc>> by_event_;
  std::unordered_map<uint64_t, Loc> by_id_;
};

/// Bytes per element of `dtype`; 0 for Unknown.
int dtype_size(schema::DType dtype);
/// Lower-case torch spelling ("float32").
const char* dtype_label(schema::DType dtype);
/// "[4, 3, 32, 32]".
std::string shape_label(const flatbuffers::Vector<int64_t>* shape);
std::string shape_label(const Shape& shape);
/// Number of elements of `shape` (1 for a 0-d tensor); 0 when a dim is negative.
uint64_t element_count(const flatbuffers::Vector<int64_t>* shape);
uint64_t element_count(const Shape& shape);

/// Decodes `rec`'s kept values out of its TensorData chunk `data`. Returns ""
/// on success, else a one-line reason ("tensor 12: data range 0+4096 outside
/// chunk 7 (2048 bytes)", "no values kept: statistics only", ...).
std::string decode_values(const schema::TensorRecord& rec, const format::DecodedChunk& data, TensorValues* out);

}  // namespace tvis::viewer
