#include "host_copy.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <cstring>

#include "device_reads.h"

namespace tvis::recorder {

namespace {

/// The pool's pinned buffer (kPinnedPoolBytes of uint8), allocated on first
/// use; undefined when pinned memory cannot be had. Never freed: it lives as
/// long as the process (freeing it after the CUDA runtime's teardown at exit
/// would fail).
const at::Tensor& pinned_pool() {
  static const at::Tensor* pool = [] {
    try {
      return new at::Tensor(at::empty({kPinnedPoolBytes}, at::TensorOptions().dtype(at::kByte).pinned_memory(true)));
    } catch (const std::exception&) {
      return new at::Tensor();  // no CUDA runtime here: pageable copies
    }
  }();
  return *pool;
}

}  // namespace

at::Tensor host_copy(const at::Tensor& t_in) {
  c10::NoGradGuard no_grad;
  const at::Tensor t = t_in.detach();
  at::Tensor out = at::empty(t.sizes(), t.options().device(at::kCPU).memory_format(at::MemoryFormat::Contiguous));
  if (t.numel() == 0) return out;
  if (!t.is_cuda()) {
    if (!t.device().is_cpu()) note_device_read();
    out.copy_(t);
    return out;
  }
  const at::Tensor& pool = pinned_pool();
  const int64_t esize = static_cast<int64_t>(t.element_size());
  char* dst = static_cast<char*>(out.data_ptr());
  for_each_slice(t, kPinnedPoolBytes / esize, [&](const at::Tensor& slice) {
    const int64_t bytes = slice.numel() * esize;
    note_device_read();  // each slice's copy waits for the device
    if (pool.defined() && bytes <= kPinnedPoolBytes) {
      at::Tensor stage = at::from_blob(pool.data_ptr(), {slice.numel()}, out.options());
      stage.copy_(slice);  // synchronous: the pinned buffer is free again when it returns
      std::memcpy(dst, pool.data_ptr(), static_cast<size_t>(bytes));
    } else {  // no pool, or a row larger than it: straight into the result
      at::from_blob(dst, {slice.numel()}, out.options()).copy_(slice);
    }
    dst += bytes;
  });
  return out;
}

}  // namespace tvis::recorder
