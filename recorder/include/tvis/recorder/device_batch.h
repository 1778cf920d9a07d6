// device_batch.h: the per-step buffer of values computed on a device for the
// recorder (statistics, histograms, row norms, thumbnails), brought to the
// host in one read when the step ends (or when it fills).
//
// Contract:
//   - add(values, use): `values` (any shape and floating dtype, on any
//     device) is queued as it is; nothing waits. Its elements reach `use` as
//     doubles at resolve(), in the order added. Tensors the training later
//     overwrites are safe: the reductions that produced `values` were queued
//     on the device's stream before the overwrite (stream order, no wait).
//   - then(fn): fn runs at resolve() after every `use`; at once when nothing
//     is queued (the CPU path, where every result is already on the host).
//   - resolve(): one read per device holding queued values (device_reads.h),
//     then the uses in order, then the then() callbacks in order. add()
//     resolves by itself once kMaxQueuedElems elements are queued, so the
//     device memory held stays bounded.
//   - Not thread-safe: the recorder calls it with the GIL held.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace tvis::recorder {

class DeviceBatch {
 public:
  using Use = std::function<void(const double* values, int64_t n)>;
  static constexpr int64_t kMaxQueuedElems = int64_t(1) << 20;  // 8 MB of doubles

  void add(const at::Tensor& values, Use use);
  void then(std::function<void()> fn);
  bool pending() const { return !uses_.empty(); }
  void resolve();

 private:
  std::vector<at::Tensor> parts_;
  std::vector<Use> uses_;
  std::vector<std::function<void()>> after_;
  int64_t queued_ = 0;
};

}  // namespace tvis::recorder
