// snapshot_spill.h: where params_before() keeps the weights of a large
// model until params_after() has computed Δw = after − before: an unlinked
// temporary file beside the run, instead of a second copy of the parameters
// in memory. The kernel's page cache holds the bytes (reclaimable, not the
// process's anonymous memory), so the recorder's memory growth stays
// bounded whatever the model's size.
//
// Contract: write() appends a contiguous CPU tensor's bytes and returns
// their offset; read() fills `dst` with `bytes` from `offset` exactly as
// written; rewind() forgets everything (the next step starts at offset 0
// and the file's pages are dropped). Errors are std::runtime_error naming
// the file's folder and errno's text; the Recorder then keeps every later
// weight in memory and names the error in its stats().
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "tvis/recorder/value_stats.h"

namespace tvis::recorder {

class SnapshotSpill {
 public:
  /// Opens an unlinked file in `dir` (O_TMPFILE, else mkostemp + unlink), close-on-exec.
  explicit SnapshotSpill(const std::string& dir);
  ~SnapshotSpill();
  SnapshotSpill(const SnapshotSpill&) = delete;
  SnapshotSpill& operator=(const SnapshotSpill&) = delete;

  int64_t write(const at::Tensor& contiguous_cpu);
  void read(int64_t offset, void* dst, size_t bytes) const;
  /// Statistics of `after` − (the float32 tensor written at `offset`), the
  /// update of a parameter the optimizer changed in place: each element one
  /// float subtraction, as at::sub computes it; summed in pieces of 2^18
  /// merged in order, as value_stats' parallel path does (with NaN or Inf,
  /// the careful path over the whole update, read back at once).
  ValueStats delta_stats(int64_t offset, const at::Tensor& after) const;
  void rewind();
  uint64_t bytes() const { return end_; }

 private:
  std::string dir_;
  int fd_ = -1;
  uint64_t end_ = 0;
};

}  // namespace tvis::recorder
