// frame_stats.h: measured frame times (ms) over the last kWindow frames;
// median, p99 and max for state()["frame_ms"]. All are 0 before the first frame.
#pragma once

#include <cstddef>
#include <vector>

namespace tvis::viewer {

class FrameStats {
 public:
  static constexpr size_t kWindow = 600;
  void add(double ms);
  double median() const { return percentile(0.5); }
  double p99() const { return percentile(0.99); }
  double max() const { return percentile(1.0); }
  size_t count() const { return samples_.size(); }

 private:
  double percentile(double q) const;
  std::vector<double> samples_;  // ring buffer of at most kWindow
  size_t next_ = 0;
};

}  // namespace tvis::viewer
