// Every recorded tensor of one call (call_tensor_list.h).
#include "tvis/viewer_model/call_tensor_list.h"

#include <unordered_set>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

std::vector<TensorRef> call_tensor_list(RunModel& model, const CallRef& call, bool* complete) {
  std::vector<TensorRef> out = model.tensors().for_event(model, call.id(), call.step(), complete);
  std::unordered_set<uint64_t> seen;
  for (const auto& t : out) seen.insert(t.id());
  for (const std::vector<uint64_t>& list : {call.inputs(), call.outputs(), call.grad_outputs()}) {
    for (uint64_t id : list) {
      if (seen.count(id)) continue;
      bool done = true;
      TensorRef ref = model.tensors().by_id(model, id, call.step(), &done);
      if (!done) *complete = false;
      if (ref) {
        seen.insert(id);
        out.push_back(std::move(ref));
      }
    }
  }
  return out;
}

}  // namespace tvis::viewer
