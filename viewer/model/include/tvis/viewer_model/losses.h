// losses.h: the run's loss records, by step. A step holds one record per
// backward() it ran (a GAN's discriminator step: the real and the fake loss),
// in event order. Pages read them as plain LossEntry values (loss_entry.h),
// copied out once as each chunk is indexed; the records themselves are for
// the model's own analyses.
//
// Contract: lazy and non-blocking, like every model index. Each call indexes
// the Loss chunks that have arrived (and asks for the rest); records stay
// valid while the index holds their chunks, for the run's life. ready() turns
// true once every Loss chunk was indexed or failed.
#pragma once

#include <map>
#include <vector>

#include <optional>

#include "tvis/viewer_model/chunk_scan.h"
#include "tvis/viewer_model/loss_entry.h"

namespace tvis::viewer {

class RunModel;

class Losses {
 public:
  explicit Losses(RunModel& model) : model_(model) {}
  void reset();
  bool ready();
  /// The first loss record of `step`, or nullptr (not recorded, or still loading).
  const schema::LossRecord* at_step(int step);
  /// Every indexed record of `step`, in event order (empty: none, or loading).
  std::vector<const schema::LossRecord*> all_at_step(int step);
  /// Every indexed record, in (step, event) order.
  std::vector<const schema::LossRecord*> all();
  /// (step, value) of every indexed record, in (step, event) order.
  std::vector<std::pair<int, double>> curve();

  /// Every indexed record as a plain entry, in (step, event) order. The
  /// reference stays valid until the next call into Losses (which may index
  /// more): loop over it, do not keep it.
  const std::vector<LossEntry>& entries();
  /// Number of indexed records (0: none, or none arrived yet).
  size_t count();
  /// Every indexed record of `step` as entries, in event order (copies).
  std::vector<LossEntry> entries_at_step(int step);
  /// The record the Loss page shows at `step`: the step's `backward`-th
  /// (0-based, clamped to the records there, so a step with fewer shows its
  /// last); nullopt when the step has none (not recorded, or still loading).
  std::optional<LossEntry> shown(int step, int backward);
  /// The record `e` was copied from (nullptr when `e` is not of this run).
  const schema::LossRecord* record(const LossEntry& e);

 private:
  struct Indexed {
    ChunkBody<schema::LossRecord> read;  // holds the chunk: the record stays valid
    LossEntry entry;                     // copied out of it once
  };
  void add(ChunkBody<schema::LossRecord>& read);

  RunModel& model_;
  ChunkScan scan_;
  // Each step's records in event order, entries' `backward` their position.
  std::map<int, std::vector<Indexed>> by_step_;
  std::vector<LossEntry> entries_;  // by_step_'s entries flattened; rebuilt when stale
  bool entries_stale_ = false;
};

}  // namespace tvis::viewer
