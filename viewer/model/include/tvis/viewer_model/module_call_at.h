// module_call_at.h: a module's call at one step, found by its path (what
// the layer panel's "across the recorded steps" table follows).
//
// Contract: the first loaded forward ModuleCall of `step` whose name is
// `module`, in RunModel::for_step_calls order; an empty ref when none is
// loaded. *complete turns false while an Events chunk that may hold the
// step is read (an empty answer may then change on a later frame).
#pragma once

#include <string_view>

#include "tvis/viewer_model/call_ref.h"

namespace tvis::viewer {

class RunModel;

CallRef module_call_at(RunModel& model, int step, std::string_view module, bool* complete);

}  // namespace tvis::viewer
