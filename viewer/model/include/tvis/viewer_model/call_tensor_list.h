// call_tensor_list.h: every recorded tensor of one call, as the inspector
// lists them.
//
// Contract: the records that name the call (TensorIndex::for_event, in
// record order), then each id the call's Event lists (inputs, outputs,
// grad_outputs, in that order) that was not found so; each tensor once.
// Non-blocking: *complete turns false while a chunk that may hold one of
// them is read; the answer is then what is known so far.
#pragma once

#include <vector>

#include "tvis/viewer_model/call_ref.h"
#include "tvis/viewer_model/tensor_ref.h"

namespace tvis::viewer {

class RunModel;

std::vector<TensorRef> call_tensor_list(RunModel& model, const CallRef& call, bool* complete);

}  // namespace tvis::viewer
