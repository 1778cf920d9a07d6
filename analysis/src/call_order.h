// call_order.h: where a tensor sits in the order the training computed it
// (private to analysis/). Within a step: the weights as the step began; the
// data, forward and loss tensors by call; dL/d(output) in backward order
// (the reverse of the calls); parameter gradients; updates.
#pragma once

#include <cstdint>
#include <tuple>

#include "tvis/analysis/run_facts.h"

namespace tvis::analysis {

inline int stage_of(Role r) {
  switch (r) {
    case Role::Weight: return 0;
    case Role::GradOutput:
    case Role::GradInput:
    case Role::LocalGrad: return 2;
    case Role::Grad: return 3;
    case Role::Update: return 4;
    default: return 1;
  }
}

/// (step, stage, call): smaller is earlier.
inline std::tuple<int, int, int64_t> call_order(const RunFacts& facts, const TensorFact& t) {
  const EventFact* e = facts.event(t.event);
  const int step = t.step >= 0 ? t.step : (e ? e->step : -1);
  const int stage = stage_of(t.role);
  return {step, stage, t.event < 0 ? 0 : (stage == 2 ? -t.event : t.event)};
}

/// "weight", "output", "dL/d(output)", ... as messages name a role.
inline const char* role_name(Role r) {
  switch (r) {
    case Role::Weight: return "weight";
    case Role::GradOutput: return "dL/d(output)";
    case Role::GradInput: return "dL/d(input)";
    case Role::Grad: return "gradient";
    case Role::Update: return "update";
    case Role::Batch: return "batch";
    case Role::Target: return "targets";
    case Role::Input: return "input";
    case Role::Logits: return "logits";
    case Role::Output: return "output";
    default: return "tensor";
  }
}

}  // namespace tvis::analysis
