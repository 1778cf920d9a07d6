// record_index.h: every record of one chunk kind, by step. The index a
// record kind gets without writing one of its own: RunModel::records<Body>()
// (Body: the schema table its chunks hold, e.g. schema::GradClipRecord)
// creates it on first use and resets it with the model's other indexes.
//
// Contract: as every model index, lazy and non-blocking: each call reads
// the kind's chunks that have arrived (asking for the rest) and answers from
// those; ready() turns true once each was read or failed (a failed chunk's
// records stay unknown). A record's step is its chunk's first step (the
// writer's add_record sets it from the record's `step` field; -1: none).
// Records at one step keep file order. The records stay valid for the run's
// life (the index holds their chunks). Pages read plain values made from
// these by the model (e.g. grad_clips.h), never the schema type itself.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "tvis/format/chunk_kind.h"
#include "tvis/viewer_model/chunk_scan.h"

namespace tvis::viewer {

class RunModel;

/// What RunModel keeps of every RecordIndex, whatever its Body.
class RecordIndexBase {
 public:
  virtual ~RecordIndexBase() = default;
  virtual void reset() = 0;
};

template <typename Body>
class RecordIndex final : public RecordIndexBase {
 public:
  static_assert(schema::BodyTraits<Body>::enum_value != schema::Body::NONE,
                "Body is not a member of recording.fbs's Body union");
  /// The chunk kind whose chunks hold a Body (format's one table).
  static format::ChunkKind kind() { return format::kind_of_body(schema::BodyTraits<Body>::enum_value); }

  explicit RecordIndex(RunModel& model) : model_(model) {}
  void reset() override {
    scan_.reset();
    by_step_.clear();
  }
  /// Reads what arrived; true once every chunk of the kind was read or failed.
  bool ready();  // defined in run_model.h, which knows RunModel
  /// The records of `step`, in file order (empty: none, or not read yet).
  std::vector<const Body*> at_step(int step) {
    ready();
    std::vector<const Body*> out;
    auto it = by_step_.find(step);
    if (it != by_step_.end())
      for (const auto& read : it->second) out.push_back(read.body);
    return out;
  }
  /// Every record read so far as (step, record), steps ascending.
  std::vector<std::pair<int, const Body*>> all() {
    ready();
    std::vector<std::pair<int, const Body*>> out;
    for (const auto& [step, reads] : by_step_)
      for (const auto& read : reads) out.emplace_back(step, read.body);
    return out;
  }

 private:
  RunModel& model_;
  ChunkScan scan_;
  std::map<int, std::vector<ChunkBody<Body>>> by_step_;  // holds the chunks
};

}  // namespace tvis::viewer
