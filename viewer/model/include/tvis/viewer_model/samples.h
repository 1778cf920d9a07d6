// samples.h: the run's followed samples: their ids (from the first Samples
// chunk that names any) and, per step, their records.
//
// Contract: lazy and non-blocking, like every model index. followed() is
// empty until the first Samples chunk arrives; for_step() visits the samples
// of resident chunks and returns false while a chunk of the step still loads.
#pragma once

#include <cstdint>
#include <vector>

#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/chunk_body.h"

namespace tvis::viewer {

class RunModel;

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

  /// Calls f(const schema::Sample*) for each sample recorded at `step`.
  template <typename F>
  bool for_step(int step, F&& f);

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
