// run_diagnosis.h: diagnose's findings for the open run (analysis/), for the
// Diagnosis page and the top bar's badge.
//
// Contract: lazy and non-blocking, like every model index. findings() asks
// the chunk cache for every chunk RunFacts wants (events, tensor records,
// optimizer steps, losses, samples, metadata: never tensor values), adds
// each as it arrives, and runs the checks once all have arrived; until then
// it answers nullptr. A live run that grew more such chunks is checked
// again. A chunk that fails to read leaves the findings of what was read and
// says so in problem().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/analysis/diagnose.h"

namespace tvis::viewer {

class RunModel;

class RunDiagnosis {
 public:
  explicit RunDiagnosis(RunModel& model) : model_(model) {}
  void reset();
  /// The findings, worst first; nullptr while chunks load.
  const std::vector<analysis::Finding>* findings();
  /// The records the checks read (run_facts.h), once every wanted chunk
  /// arrived (findings() non-null); nullptr while they load. `tvis diff`'s
  /// comparison (run_comparison.h) reads them too.
  const analysis::RunFacts* facts() { return findings() ? &facts_ : nullptr; }
  /// The chunks the checks read, and their stored bytes.
  uint64_t chunks_read() const { return chunks_read_; }
  uint64_t bytes_read() const { return bytes_read_; }
  /// Why some records were not read ("" when all were).
  const std::string& problem() const { return problem_; }

 private:
  std::vector<uint32_t> wanted() const;  // ordinals of the chunks the checks read, sorted
  size_t wanted_count() const;

  RunModel& model_;
  analysis::RunFacts facts_;
  std::vector<uint32_t> added_;  // ordinals added to facts_ (or failed), sorted
  size_t wanted_count_ = 0;      // how many chunks the last complete pass wanted
  bool done_ = false;
  std::vector<analysis::Finding> findings_;
  uint64_t chunks_read_ = 0, bytes_read_ = 0;
  std::string problem_;
};

}  // namespace tvis::viewer
