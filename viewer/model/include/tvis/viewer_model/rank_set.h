// rank_set.h: the ranks of one distributed run (docs/run_layout.md: run.tvis
// is rank 0, rank<k>.tvis rank k, in one run folder), as the viewer holds
// them: where each rank's file comes from, and a model per rank for the pages
// that show the ranks side by side (Loss, Weights).
//
// Contract: the shown rank is read by the App's own RunModel; RankSet's peer
// models are opened only when a page first asks for a rank's data (peer()),
// so a page that shows one rank reads one file. Peers are non-blocking like
// every RunModel: begin_frame() lands their reads; a peer's source that
// cannot be created is a Failed model with the reason.
//
// A run of one file is a RankSet of size 0 or 1 (single()).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tvis/format/byte_source.h"
#include "tvis/format/error.h"

namespace tvis::viewer {

class RunModel;
struct RunInfo;

/// One rank's file as a shell found it: its rank (from the file's name),
/// a short name ("rank1.tvis", a URL) and how to create its source.
struct RankSource {
  int rank = 0;
  std::string name;
  std::function<format::Result<std::shared_ptr<format::ByteSource>>()> open;
};

/// Who recorded a run file, from its RunMeta options; -1 where the run does
/// not say (a single-process run records no rank).
struct RankIdentity {
  int rank = -1;
  int world_size = -1;
  std::string launcher, backend, hostname;
};

/// The identity `info` records (options rank, world_size, launcher, backend).
RankIdentity rank_identity_of(const RunInfo& info);

/// One rank file as found (its rank from its name) and as recorded.
struct RankFileCheck {
  int rank = 0;
  std::string name;
  RankIdentity recorded;
};

/// What is wrong with a run's rank files, one line each (empty: nothing): a
/// file whose recorded rank is not the rank its name says, files that
/// disagree on the world size, ranks of 0..world_size-1 without a file, a
/// file beyond the world size. Files that record no rank are taken as named.
std::vector<std::string> rank_problems(const std::vector<RankFileCheck>& files);

class RankSet {
 public:
  explicit RankSet(uint64_t peer_cache_budget);
  ~RankSet();
  RankSet(const RankSet&) = delete;
  RankSet& operator=(const RankSet&) = delete;

  /// Replaces the ranks (sorted by rank here); closes every peer.
  void reset(std::vector<RankSource> sources);
  void clear() { reset({}); }
  /// Peers opened later decode on a worker thread (RunModel::set_decode_in_background).
  void set_decode_in_background(bool on) { decode_in_background_ = on; }

  /// The rank files, by rank.
  const std::vector<RankSource>& sources() const { return sources_; }
  size_t size() const { return sources_.size(); }
  /// Fewer than two rank files: nothing to pick or compare.
  bool single() const { return sources_.size() < 2; }
  /// The source of `rank`, or nullptr.
  const RankSource* source_of(int rank) const;

  /// The model of `rank` for side-by-side reads, opened on the first ask;
  /// nullptr for a rank not in the set.
  RunModel* peer(int rank);
  /// Peers already opened (not opening any).
  RunModel* peer_if_open(int rank) const;
  /// Starts a frame on every opened peer's chunk cache (their answers land);
  /// the peers share `frame_decode_bytes` (at least 64 KiB each).
  void begin_frame(uint64_t frame_decode_bytes);
  /// True while a peer opens or one of its reads is in flight.
  bool loading() const;

 private:
  uint64_t budget_;
  bool decode_in_background_ = false;
  std::vector<RankSource> sources_;
  std::map<int, std::unique_ptr<RunModel>> peers_;
};

}  // namespace tvis::viewer
