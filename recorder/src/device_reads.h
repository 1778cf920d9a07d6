// device_reads.h: the one door through which the recorder reads values back
// from an accelerator, and the count of how often it did.
//
// Contract:
//   - Every device -> host read of the recorder (a copy the host waits for:
//     statistics, kept values, the wait on the staging stream) calls
//     read_to_host() or note_device_read(); each call counts one read. The
//     count is what stalls the training stream: the run records it per step
//     (RunMeta.step_device_reads, `tvis inspect`'s `device_reads`).
//   - read_to_host(t): a contiguous CPU tensor equal to `t`; for a CPU tensor
//     (the forced device path, device_stats.h) a contiguous copy.
//   - device_reads(): reads counted in this process so far (all recorders).
//   - Not thread-safe beyond the counter itself: called with the GIL held.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace tvis::recorder {

at::Tensor read_to_host(const at::Tensor& t);
void note_device_read();
uint64_t device_reads();

}  // namespace tvis::recorder
