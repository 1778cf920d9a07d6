// decoded_values.h: tensor values by id, decoded once for every page and
// panel of the viewer, within one memory budget.
//
// Contracts:
//   - Non-blocking: get() answers a `loading` tensor while its records or
//     its TensorData chunk are read (the reads are in flight) and the
//     decoded values on a later call.
//   - One cache: the layer panel, Replay's data view and the insight pages
//     ask the same object, so a tensor two of them show is decoded once.
//   - Bounded: the decoded values held count against a byte budget; past it
//     the least recently asked for are let go (a later get() decodes them
//     again). What a caller holds stays valid: answers are shared_ptrs.
//   - Decoded values (or why a record has none) are kept until another run
//     opens; "not in the run" is answered again each time (a live run's
//     next chunks may hold the tensor).
#pragma once

#include <climits>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

class RunModel;

/// A tensor's decoded values, or why it has none.
struct DecodedTensor {
  uint64_t id = UINT64_MAX;
  bool loading = true;   // its records or its values are still being read
  std::string error;     // settled without values: why ("" with values)
  TensorValues values;
  DType dtype = DType::Unknown;  // as recorded (Unknown until the record is found)
  bool bytes = false;    // recorded as uint8 (a picture as the pipeline had it)
  bool missing = false;  // no record of this id in the run (`error` says so)
  bool ok() const { return !loading && error.empty(); }
};

class DecodedValues {
 public:
  DecodedValues(RunModel& model, uint64_t budget_bytes) : model_(model), budget_(budget_bytes) {}
  void reset();
  /// Tensor `id`, recorded at `step` (INT32_MIN: at any step). Never null.
  std::shared_ptr<const DecodedTensor> get(uint64_t id, int step = INT32_MIN);
  /// The same for a record already found.
  std::shared_ptr<const DecodedTensor> get(const schema::TensorRecord& rec);
  /// The same for a ref already found (what pages and panels use).
  std::shared_ptr<const DecodedTensor> get(const TensorRef& ref) { return get(*ref.record()); }
  /// Decoded bytes held now (each value counts as a double).
  uint64_t bytes_held() const { return held_; }
  uint64_t budget_bytes() const { return budget_; }

 private:
  using Entry = std::shared_ptr<const DecodedTensor>;
  std::shared_ptr<const DecodedTensor> keep(DecodedTensor d);
  void touch(uint64_t id);
  static uint64_t size_of(const DecodedTensor& d);

  RunModel& model_;
  uint64_t budget_;
  uint64_t held_ = 0;
  std::list<uint64_t> lru_;  // most recently asked for first
  struct Slot {
    Entry value;
    std::list<uint64_t>::iterator at;
  };
  std::unordered_map<uint64_t, Slot> slots_;
};

}  // namespace tvis::viewer
