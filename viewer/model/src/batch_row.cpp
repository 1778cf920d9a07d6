// batch_row.cpp: batch_row.h.
#include "tvis/viewer_model/batch_row.h"

#include "tvis/viewer_model/run_model.h"
#include "tvis/viewer_model/step_stops.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

BatchRow batch_row(RunModel& model, int step, int64_t row, int64_t rows) {
  BatchRow out;
  const StepPlan* plan = model.step_stops().plan(step);
  if (!plan) {
    out.state = BatchRow::State::PlanLoading;
    return out;
  }
  const StepBatch batch = step_batch(model, *plan);
  if (!batch.holder) return out;
  bool done = true;
  const TensorRef ref = model.tensors().by_id(model, batch.parts[0], step, &done);
  if (!ref) {
    if (!done) out.state = BatchRow::State::Loading;
    return out;
  }
  const auto* shape = ref.record()->shape();
  if (!shape || shape->size() < 2 || shape->Get(0) != rows) return out;
  const KeptValues kept = kept_values(*ref.record());
  if (kept.kept == ValuesKept::None) return out;
  if (kept.kept == ValuesKept::LeadingRows && row >= kept.kept_rows) return out;
  out.state = BatchRow::State::Found;
  out.tensor = ref.record()->id();
  out.row_shape.assign(shape->begin() + 1, shape->end());
  return out;
}

}  // namespace tvis::viewer
