// host_copy.h: a device tensor's values into host memory through one bounded
// pinned staging buffer, the recorder's only device-to-host path for kept
// values and the weights kept before an optimizer step.
//
// Contract:
//   - host_copy(t): a new contiguous CPU tensor equal to `t` (same shape and
//     dtype), never changing `t`. A CPU tensor is copied plainly. A CUDA
//     tensor is copied kPinnedPoolBytes at a time into the pool's pinned
//     buffer (allocated on first use, kept for the process's life, reused)
//     and from there into the pageable result, so the pinned memory the
//     recorder holds is bounded by kPinnedPoolBytes whatever the model's
//     size. A contiguous `t` allocates no device memory; a non-contiguous one
//     is made contiguous a slice of dim 0 at a time (device temporaries of
//     about kPinnedPoolBytes; one row when a row is larger).
//   - When pinned memory cannot be had (no CUDA runtime, the allocation
//     fails) the copy goes straight to pageable memory, as .to(kCPU) does.
//   - Not thread-safe: the recorder calls it with the GIL held.
#pragma once

#include <ATen/core/Tensor.h>

#include <algorithm>
#include <cstdint>

namespace tvis::recorder {

/// Bytes of the pinned staging buffer (docs/cli.md, "Memory").
constexpr int64_t kPinnedPoolBytes = int64_t(64) << 20;

at::Tensor host_copy(const at::Tensor& t);

/// Calls fn(slice) for consecutive contiguous 1-d slices of `t`'s values in
/// row-major order, each of at most `max_elems` elements (or one row of dim 0
/// when a row is larger): the device temporaries of a pass over `t` stay
/// bounded by the slice, whatever `t`'s size.
template <typename Fn>
void for_each_slice(const at::Tensor& t, int64_t max_elems, Fn fn);

/// Elements a device-side statistics pass reduces at once (tensor_capture.cpp):
/// bounds the device temporaries of the statistics to a few slices of this
/// many doubles, whatever the tensor's size.
constexpr int64_t kDeviceSliceElems = int64_t(1) << 24;

template <typename Fn>
void for_each_slice(const at::Tensor& t, int64_t max_elems, Fn fn) {
  if (t.numel() == 0) return;
  if (t.dim() == 0 || t.is_contiguous()) {
    const at::Tensor flat = t.reshape({-1});  // a view: contiguous
    for (int64_t off = 0; off < flat.numel(); off += max_elems)
      fn(flat.narrow(0, off, std::min(max_elems, flat.numel() - off)));
    return;
  }
  const int64_t row = t.numel() / t.size(0);
  const int64_t rows = std::max<int64_t>(1, max_elems / std::max<int64_t>(row, 1));
  for (int64_t r = 0; r < t.size(0); r += rows)
    fn(t.narrow(0, r, std::min(rows, t.size(0) - r)).reshape({-1}));  // a copy of the slice alone
}

}  // namespace tvis::recorder
