// chunk_scan.h: how an index reads "every chunk of one kind, each once, as
// it arrives". run() visits the bodies of the listed chunks that are
// resident and not yet visited (asking for the others), and returns true once
// each was visited or failed; after that it costs nothing. A failed chunk
// counts as visited (its records stay unknown); a chunk with another body
// kind is skipped.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "tvis/viewer_model/chunk_body.h"

namespace tvis::viewer {

class ChunkScan {
 public:
  void reset() {
    done_ = false;
    seen_.clear();
  }
  bool done() const { return done_; }

  /// Calls visit(ChunkBody<Body>&) once per chunk of `ordinals` as it arrives.
  template <typename Body, typename F>
  bool run(ChunkCache& cache, const std::vector<uint32_t>& ordinals, bool pin, F&& visit) {
    if (done_) return true;
    bool all = true;
    for (uint32_t ordinal : ordinals) {
      if (seen_.count(ordinal)) continue;
      auto read = read_body<Body>(cache, ordinal, pin);
      if (read.state == ChunkRead::Loading) {
        all = false;
        continue;
      }
      seen_.insert(ordinal);
      if (read.body) visit(read);
    }
    done_ = all;
    return done_;
  }

 private:
  bool done_ = false;
  std::unordered_set<uint32_t> seen_;
};

}  // namespace tvis::viewer
