// A module's forward call at one step (module_call_at.h).
#include "tvis/viewer_model/module_call_at.h"

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

CallRef module_call_at(RunModel& model, int step, std::string_view module, bool* complete) {
  CallRef found;
  const bool all = model.for_step_calls(step, [&](const CallRef& call) {
    if (!found && call.kind() == EventKind::ModuleCall && call.phase() == Phase::Forward && call.name() == module)
      found = call;  // the one copy (a reference count), for the call kept
  });
  if (!all) *complete = false;
  return found;
}

}  // namespace tvis::viewer
