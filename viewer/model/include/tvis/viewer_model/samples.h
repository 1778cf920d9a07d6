// samples.h: the run's followed samples: their ids (from the first Samples
// chunk that names any) and, per step, their records.
//
// Contract: lazy and non-blocking, like every model index. followed() is
// empty until the first Samples chunk arrives; for_step() visits the samples
// of resident chunks and returns false while a chunk of the step still loads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/chunk_body.h"

namespace tvis::viewer {

class RunModel;

/// One transform a followed sample went through in its dataset, copied out.
struct TransformEntry {
  std::string name;        // "RandomRotation(degrees=[-10.0, 10.0])"; "" when not recorded
  std::string class_name;  // "RandomRotation"; "" when not recorded
  uint64_t event = 0;      // its Transform call
  int64_t input = -1, output = -1;  // tensor ids (-1: not recorded)
  ValueKind input_kind = ValueKind::Tensor, output_kind = ValueKind::Tensor;
};

/// One followed sample of a step as the pages show it, copied out of its record.
struct SampleEntry {
  int id = 0;
  int step = -1;
  int64_t dataset_index = -1;
  int batch_position = -1;   // its row in the batch (-1: not known)
  std::string label;         // "" when none
  int64_t label_index = -1;
  int64_t input = -1;        // tensor id of the sample as batched
  std::vector<TransformEntry> transforms;  // in the order they ran
  /// The item as the dataset returned it: the first transform's input, else `input`.
  int64_t item() const { return transforms.empty() ? input : transforms.front().input; }
};

class Samples {
 public:
  explicit Samples(RunModel& model) : model_(model) {}
  void reset();
  /// The run records followed samples at all (it has Samples chunks).
  bool any() const;
  /// The followed ids, in first-seen order (indexes on first use).
  const std::vector<int>& followed();
  /// The followed ids indexed so far, without starting a read (for reports).
  const std::vector<int>& followed_known() const { return followed_; }
  /// Position of sample `id` in followed(), or -1.
  int position(int id);

  /// Calls f(const schema::Sample*) for each sample recorded at `step`
  /// (viewer/model's own code; pages use step_samples).
  template <typename F>
  bool for_step(int step, F&& f);
  /// The samples recorded at `step` copied into `out` (cleared first), in
  /// record order; false while a chunk of the step still loads.
  bool step_samples(int step, std::vector<SampleEntry>* out);

 private:
  const std::vector<uint32_t>& chunks() const;
  void index_followed();
  bool holds_step(uint32_t ordinal, int step) const;
  ChunkCache& cache();

  RunModel& model_;
  bool indexed_ = false;
  std::vector<int> followed_;
};

template <typename F>
bool Samples::for_step(int step, F&& f) {
  bool complete = true;
  for (uint32_t ordinal : chunks()) {
    if (!holds_step(ordinal, step)) continue;
    auto read = read_body<schema::SampleBatch>(cache(), ordinal);
    if (read.state == ChunkRead::Loading) complete = false;
    if (!read.body || !read.body->samples()) continue;
    for (const schema::Sample* s : *read.body->samples()) f(s);
  }
  return complete;
}

}  // namespace tvis::viewer
