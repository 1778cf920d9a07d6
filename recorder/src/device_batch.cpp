#include "tvis/recorder/device_batch.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <map>

#include "device_reads.h"

namespace tvis::recorder {

void DeviceBatch::add(const at::Tensor& values, Use use) {
  c10::NoGradGuard no_grad;
  parts_.push_back(values.detach().reshape({-1}).to(at::kDouble));
  uses_.push_back(std::move(use));
  queued_ += parts_.back().numel();
  if (queued_ >= kMaxQueuedElems) resolve();
}

void DeviceBatch::then(std::function<void()> fn) {
  if (!pending()) {
    fn();
    return;
  }
  after_.push_back(std::move(fn));
}

void DeviceBatch::resolve() {
  c10::NoGradGuard no_grad;
  std::vector<at::Tensor> parts = std::move(parts_);
  std::vector<Use> uses = std::move(uses_);
  std::vector<std::function<void()>> after = std::move(after_);
  parts_.clear();
  uses_.clear();
  after_.clear();
  queued_ = 0;
  // One read per device: the parts of a device joined there, copied once.
  std::map<std::string, std::vector<size_t>> by_device;
  for (size_t i = 0; i < parts.size(); ++i) by_device[parts[i].device().str()].push_back(i);
  std::vector<at::Tensor> host(parts.size());
  std::vector<int64_t> offset(parts.size(), 0);
  for (auto& [device, idx] : by_device) {
    std::vector<at::Tensor> mine;
    int64_t off = 0;
    for (size_t i : idx) {
      mine.push_back(parts[i]);
      offset[i] = off;
      off += parts[i].numel();
    }
    const at::Tensor joined = read_to_host(mine.size() == 1 ? mine[0] : at::cat(mine));
    for (size_t i : idx) host[i] = joined;
  }
  for (size_t i = 0; i < parts.size(); ++i) uses[i](host[i].data_ptr<double>() + offset[i], parts[i].numel());
  for (auto& fn : after) fn();
}

}  // namespace tvis::recorder
