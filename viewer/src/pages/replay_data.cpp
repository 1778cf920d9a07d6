// replay_data.cpp: replay_data.h.
#include "replay_data.h"

#include <algorithm>

#include "replay_state.h"
#include "tvis/viewer_model/followed_sample.h"

namespace tvis::viewer {

namespace {

// Rows of `ref` whose values were kept (0: statistics only).
int64_t rows_kept(const TensorRef& ref, const Shape& shape) {
  const KeptValues kept = ref.kept();
  if (kept.kept == ValuesKept::LeadingRows) return kept.kept_rows;
  if (kept.kept == ValuesKept::Full) return shape[0];
  return 0;
}

// Fills the rows and how they are drawn, from b.tensor and b.shape.
void describe_rows(BatchShown& b) {
  const std::vector<int64_t> one(b.shape.begin() + 1, b.shape.end());
  b.rows_kept = rows_kept(b.tensor, b.shape);
  b.rows_drawn = static_cast<int>(std::min<int64_t>(b.rows_kept, kBatchRowsDrawn));
  b.row_layout = picture_layout(one);
  b.integer = b.tensor.dtype() == DType::Int64 || b.tensor.dtype() == DType::Int32;
  b.drawn_as = b.row_layout.ok ? BatchShown::DrawnAs::Images
               : b.integer     ? BatchShown::DrawnAs::TokenIds
                               : BatchShown::DrawnAs::Values;
  b.row_size = 1;
  for (int64_t d : one) b.row_size *= static_cast<size_t>(std::max<int64_t>(d, 0));
}

}  // namespace

BatchShown batch_shown(AppState& s, int step, int followed_row) {
  BatchShown b;
  b.followed_row = followed_row;
  const StepPlan* plan = s.model.step_stops().plan(step);
  if (!plan) return b;  // Loading
  const StepBatch batch = step_batch(s.model, *plan);
  if (!batch.holder) {
    b.state = batch.fetch ? BatchShown::State::NotRecorded : BatchShown::State::NoFetch;
    return b;
  }
  b.from_loader = batch.holder.kind() == EventKind::DataFetch;
  b.parts = batch.parts.size();
  bool done = true;
  b.tensor = s.model.tensors().by_id(s.model, batch.parts[0], step, &done);
  if (!b.tensor) {
    b.state = done ? BatchShown::State::NotRecorded : BatchShown::State::Loading;
    return b;
  }
  if (b.tensor.rank() == 0) {
    b.state = BatchShown::State::Scalar;
    return b;
  }
  b.state = BatchShown::State::Shown;
  b.shape = b.tensor.shape();
  describe_rows(b);
  return b;
}

const char* drawn_as_label(BatchShown::DrawnAs a) {
  switch (a) {
    case BatchShown::DrawnAs::Images: return "images";
    case BatchShown::DrawnAs::TokenIds: return "token ids";
    case BatchShown::DrawnAs::Values: return "values";
  }
  return "values";
}

namespace {

StageShown stage_of(const TransformEntry& t, uint64_t current_event) {
  StageShown st;
  st.name = t.name.empty() ? "transform" : t.name;
  st.class_name = !t.class_name.empty() ? t.class_name : st.name.substr(0, st.name.find('('));
  st.output = t.output;
  st.output_kind = t.output_kind;
  st.current = t.event == current_event;
  return st;
}

}  // namespace

SampleShown sample_shown(AppState& s, int step, int sample, uint64_t current_event) {
  SampleShown out;
  out.id = sample;
  if (sample < 0) return out;  // NotFollowed
  std::vector<SampleEntry> samples;
  s.model.samples().step_samples(step, &samples);
  const auto smp = std::find_if(samples.begin(), samples.end(), [&](const SampleEntry& e) { return e.id == sample; });
  if (smp == samples.end()) {
    out.state = SampleShown::State::Missing;
    return out;
  }
  out.state = SampleShown::State::Shown;
  out.dataset_index = smp->dataset_index;
  out.batch_row = smp->batch_position;
  out.label = smp->label;
  out.item = smp->item();
  for (const TransformEntry& t : smp->transforms) out.stages.push_back(stage_of(t, current_event));
  return out;
}

DataShown data_shown(AppState& s, int step, const Stop& here) {
  const int sample = replay_sample(s);
  return {batch_shown(s, step, sample_row(s.model, step, sample)), sample_shown(s, step, sample, here.event)};
}

}  // namespace tvis::viewer
