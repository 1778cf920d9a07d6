// A followed sample's row and picture at a step (followed_sample.h).
#include "tvis/viewer_model/followed_sample.h"

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

namespace {

std::optional<uint64_t> picture_of(const schema::Sample& x) {
  std::optional<uint64_t> out;
  if (x.transforms())
    for (const auto* t : *x.transforms())
      if (t->output_kind() == schema::ValueKind::PILImage && t->output() >= 0) out = static_cast<uint64_t>(t->output());
  if (!out && x.input() >= 0) out = static_cast<uint64_t>(x.input());
  return out;
}

}  // namespace

SampleAtStep sample_at_step(RunModel& model, int step, int sample) {
  SampleAtStep out;
  if (sample < 0) {
    out.row = 0;
    return out;
  }
  if (!model.samples().any()) {
    out.row = sample;
    return out;
  }
  bool found = false;
  out.complete = model.samples().for_step(step, [&](const schema::Sample* x) {
    if (found || x->id() != sample || x->step() != step) return;
    found = true;
    out.row = x->batch_position();
    out.picture = picture_of(*x);
  });
  return out;
}

int sample_row(RunModel& model, int step, int sample) { return sample_at_step(model, step, sample).row; }

}  // namespace tvis::viewer
