// call_tensors.h: which tensor is a call's output, and which its gradient,
// decided once for every page, panel and index.
//
// The rule: a call's tensors are the ids its Event lists (`outputs`,
// `grad_outputs`), first listed first, found by id. The recorder lists every
// one, including a tensor recorded earlier by another call (a container
// returning its last child's output is that same tensor: one record, whose
// TensorRecord.event names the child). Only a run whose event lists none (a
// writer that sets TensorRecord.event alone: tvis-synth, older files) has
// the records naming the call instead, lowest slot first. Nobody else
// tries one and then the other.
//
// Non-blocking: *complete turns false while a chunk that may hold the event
// or the record is read (the read is in flight); the answer is then what is
// known so far.
#pragma once

#include <cstdint>

#include "tvis/viewer_model/call_ref.h"
#include "tvis/viewer_model/call_ref.h"
#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

class RunModel;

/// The first output (gradient: the first dL/d(output)) of call `e`, or an
/// empty ref when the call has none (or it still loads: see *complete).
TensorRef call_tensor(RunModel& model, const schema::Event& e, bool gradient, bool* complete);
/// The same for a CallRef (what pages and panels hold).
inline TensorRef call_tensor(RunModel& model, const CallRef& call, bool gradient, bool* complete) {
  return call_tensor(model, *call.record(), gradient, complete);
}
/// The same for the call with id `event` (its Events chunk is asked for
/// when not resident).
TensorRef call_tensor(RunModel& model, uint64_t event, bool gradient, bool* complete);

/// A call's output and gradient together.
struct CallTensors {
  TensorRef output;
  TensorRef gradient;
  bool complete = true;  // false while a chunk that may hold them is read
};
CallTensors call_tensors(RunModel& model, const schema::Event& e);
inline CallTensors call_tensors(RunModel& model, const CallRef& call) { return call_tensors(model, *call.record()); }

}  // namespace tvis::viewer
