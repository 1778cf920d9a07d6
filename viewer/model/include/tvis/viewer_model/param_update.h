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

#include <string>

#include "tvis/viewer_model/chunk_body.h"
#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

class RunModel;

/// The values of `p`'s update at `step` (the step its OptimizerStepRecord
/// belongs to): Loading while a record or chunk is read; else Ready with
/// *error "" (values in *out; `partial` when either weight kept only leading
/// rows: then the rows both kept) or a one-line reason.
ChunkRead read_update_values(RunModel& model, const schema::ParamRecord& p, int step, TensorValues* out,
                             std::string* error);

/// `a - b` in `dtype`'s arithmetic, widened to double (see the file comment).
double subtract_in_dtype(double a, double b, schema::DType dtype);

}  // namespace tvis::viewer
