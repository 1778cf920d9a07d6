// A call's output and gradient tensors (call_tensors.h).
#include "tvis/viewer_model/call_tensors.h"

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

TensorRef call_tensor(RunModel& model, const schema::Event& e, bool gradient, bool* complete) {
  const auto* listed = gradient ? e.grad_outputs() : e.outputs();
  if (listed && listed->size() > 0) return model.tensors().by_id(model, listed->Get(0), e.step(), complete);
  const schema::TensorRole want = gradient ? schema::TensorRole::GradOutput : schema::TensorRole::Output;
  TensorRef best;
  for (TensorRef& t : model.tensors().for_event(model, e.id(), e.step(), complete))
    if (t.record()->role() == want && (!best || t.record()->slot() < best.record()->slot())) best = std::move(t);
  return best;
}

TensorRef call_tensor(RunModel& model, uint64_t event, bool gradient, bool* complete) {
  const schema::Event* e = model.event(event);
  if (!e) {
    if (model.event_state(event) == EventState::Loading) *complete = false;
    return {};
  }
  return call_tensor(model, *e, gradient, complete);
}

CallTensors call_tensors(RunModel& model, const schema::Event& e) {
  CallTensors out;
  out.output = call_tensor(model, e, false, &out.complete);
  out.gradient = call_tensor(model, e, true, &out.complete);
  return out;
}

}  // namespace tvis::viewer
