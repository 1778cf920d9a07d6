#include "tvis/recorder/byte_budget.h"

#include <algorithm>

namespace tvis::recorder {

void ByteBudget::begin_step(int step) {
  step_ = step;
  step_used_ = 0;
  const uint64_t left = total_ > used_ ? total_ - used_ : 0;
  const int steps_left = std::max(1, steps_ - step);
  step_share_ = left / static_cast<uint64_t>(steps_left);
}

uint64_t ByteBudget::parameter_reserve() const {
  const uint64_t copies = parameter_bytes_ * (step_ == 0 ? 3 : 2);
  return std::min(copies, step_share_ / 2);
}

bool ByteBudget::grant(Priority p, uint64_t bytes) {
  if (p == Priority::Essential || total_ == 0) {
    used_ += bytes;
    step_used_ += bytes;
    return true;
  }
  uint64_t room = step_share_;
  if (p != Priority::Parameters) {
    const uint64_t reserve = parameter_reserve();
    room = room > reserve ? room - reserve : 0;
  }
  if (step_used_ + bytes > room || used_ + bytes > total_) {
    ++refused_;
    refused_bytes_ += bytes;
    return false;
  }
  used_ += bytes;
  step_used_ += bytes;
  return true;
}

}  // namespace tvis::recorder
