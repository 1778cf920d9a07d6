#include "tvis/viewer_model/run_diagnosis.h"

#include <algorithm>

#include "tvis/format/container.h"
#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

void RunDiagnosis::reset() {
  facts_ = analysis::RunFacts();
  added_.clear();
  wanted_count_ = 0;
  done_ = false;
  findings_.clear();
  chunks_read_ = bytes_read_ = 0;
  problem_.clear();
}

namespace {

constexpr format::ChunkKind kWanted[] = {format::ChunkKind::RunMeta,       format::ChunkKind::Events,
                                         format::ChunkKind::Tensors,       format::ChunkKind::OptimizerStep,
                                         format::ChunkKind::Samples,       format::ChunkKind::Loss};

}  // namespace

size_t RunDiagnosis::wanted_count() const {
  size_t n = 0;
  for (auto kind : kWanted) n += model_.chunks_of_kind(kind).size();
  return n;
}

std::vector<uint32_t> RunDiagnosis::wanted() const {
  std::vector<uint32_t> out;
  for (auto kind : kWanted)
    for (uint32_t ordinal : model_.chunks_of_kind(kind)) out.push_back(ordinal);
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<analysis::Finding>* RunDiagnosis::findings() {
  if (!model_.cache_if_open()) return nullptr;
  if (done_ && wanted_count() == wanted_count_) return &findings_;  // every frame: no list built
  const std::vector<uint32_t> want = wanted();
  if (done_) {  // a live run grew: gather again from what is known plus the new chunks
    facts_ = analysis::RunFacts();
    added_.clear();
    done_ = false;
    chunks_read_ = bytes_read_ = 0;
  }
  ChunkCache& cache = model_.cache();
  bool missing = false;
  for (uint32_t ordinal : want) {
    if (std::binary_search(added_.begin(), added_.end(), ordinal)) continue;
    if (const format::Status* failed = cache.failure(ordinal)) {
      problem_ = "a chunk diagnose reads could not be read (" + failed->message + "): findings cover the rest";
      added_.insert(std::upper_bound(added_.begin(), added_.end(), ordinal), ordinal);
      continue;
    }
    ChunkCache::ChunkPtr chunk = cache.get(ordinal);
    if (!chunk) {
      missing = true;
      continue;
    }
    if (format::Status added = facts_.add_chunk(*chunk); !added)  // refused whole (copy_budget.h)
      problem_ = "a chunk diagnose reads was refused (" + added.message + "): findings cover the rest";
    chunks_read_ += 1;
    bytes_read_ += chunk->entry().compressed_size + format::kChunkHeaderSize;
    added_.insert(std::upper_bound(added_.begin(), added_.end(), ordinal), ordinal);
  }
  if (missing) return nullptr;
  facts_.finish();
  findings_ = analysis::diagnose(facts_);
  wanted_count_ = want.size();
  done_ = true;
  return &findings_;
}

}  // namespace tvis::viewer
