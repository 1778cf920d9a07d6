#include "device_reads.h"

#include <ATen/ATen.h>

#include <atomic>

namespace tvis::recorder {
namespace {
std::atomic<uint64_t> g_reads{0};
}  // namespace

void note_device_read() { g_reads.fetch_add(1, std::memory_order_relaxed); }

uint64_t device_reads() { return g_reads.load(std::memory_order_relaxed); }

at::Tensor read_to_host(const at::Tensor& t) {
  note_device_read();
  return t.device().is_cpu() ? t.contiguous().clone() : t.to(at::kCPU).contiguous();
}

}  // namespace tvis::recorder
