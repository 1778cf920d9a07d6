// param_update.h: a parameter's update Δw at one step, as values.
//
// Runs store each weight once per step boundary: ParamRecord.after is the
// weight after the step (the next step's `weight`), and the Update record
// keeps statistics only. Δw's values are then exactly after − weight,
// computed here in the parameter's dtype as torch's CPU subtraction does:
// float32 in float, float64 in double, float16 / bfloat16 in float rounded
// to the dtype (nearest, ties to even), integers exactly. Runs that kept
// Δw's values (older runs; TVIS_UPDATE_VALUES=1) are read as they are.
#pragma once

#include <memory>
#include <string>

#include "tvis/viewer_model/decoded_values.h"
#include "tvis/viewer_model/optimizer_steps.h"
#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

class RunModel;

/// The values of `p`'s update at `step` (the step its OptimizerStepRecord
/// belongs to), never null: `loading` while a record or chunk is read; else
/// the values (`partial` when either weight kept only leading rows: then the
/// rows both kept) or `error`, a one-line reason. Every tensor read comes
/// from the model's one cache (model.values()): Δw's own record when it kept
/// values (that cached answer itself), else after − before of the cached
/// weights, computed on each call (the caller keeps what it draws).
std::shared_ptr<const DecodedTensor> update_values(RunModel& model, const ParamTensors& p, int step);

/// `a - b` in `dtype`'s arithmetic, widened to double (see the file comment).
double subtract_in_dtype(double a, double b, schema::DType dtype);

}  // namespace tvis::viewer
