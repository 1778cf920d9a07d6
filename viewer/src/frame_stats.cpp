#include "frame_stats.h"

#include <algorithm>
#include <cmath>

namespace tvis::viewer {

void FrameStats::add(double ms) {
  if (!(ms >= 0) || !std::isfinite(ms)) return;
  if (samples_.size() < kWindow) {
    samples_.push_back(ms);
  } else {
    samples_[next_] = ms;
    next_ = (next_ + 1) % kWindow;
  }
}

// Nearest-rank percentile.
double FrameStats::percentile(double q) const {
  if (samples_.empty()) return 0;
  std::vector<double> sorted = samples_;
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size()) - 1;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(rank), sorted.end());
  return sorted[rank];
}

}  // namespace tvis::viewer
