// replay_data_json.cpp: Replay's view.data (docs/viewer_test_surface.md),
// built when state() asks from the values the data view draws
// (replay_data.h), with each tensor's decoded values summarised.
#include <algorithm>

#include "replay_data.h"
#include "replay_state.h"

namespace tvis::viewer {

namespace {

using nlohmann::json;

// The batch's keys; `rows_kept`, `rows_drawn` and `drawn_as` only where rows
// were kept (else the view says only statistics were).
json batch_json(const BatchShown& b) {
  json out = {{"tensor", b.tensor.id()},
              {"shape", b.shape},
              {"dtype", b.tensor.dtype_label()},
              {"from", b.from_loader ? "DataLoader" : "model"},
              {"parts", b.parts},
              {"followed_row", b.followed_row}};
  if (b.rows_kept == 0) return out;
  out["rows_kept"] = b.rows_kept;
  out["rows_drawn"] = b.rows_drawn;
  out["drawn_as"] = drawn_as_label(b.drawn_as);
  return out;
}

json sample_json(const SampleShown& smp) {
  json stages = json::array();
  for (const StageShown& st : smp.stages)
    stages.push_back({{"name", st.name},
                      {"class", st.class_name},
                      {"output", st.output},
                      {"output_kind", value_kind_name(st.output_kind)},
                      {"current", st.current}});
  return {{"id", smp.id},
          {"dataset_index", smp.dataset_index},
          {"batch_row", smp.batch_row},
          {"label", smp.label},
          {"item", smp.item},
          {"stages", stages}};
}

// {shape, min, max, mean} of tensor `id` as the viewer decoded it; null
// while it loads or when it has no values.
json values_summary(AppState& s, int64_t id, int step, std::shared_ptr<const DecodedTensor>* out = nullptr) {
  if (id < 0) return nullptr;
  const std::shared_ptr<const DecodedTensor> decoded = s.model.values().get(static_cast<uint64_t>(id), step);
  const TensorValues* v = &decoded->values;
  if (decoded->loading || v->values.empty()) return nullptr;
  if (out) *out = decoded;
  const auto [lo, hi] = std::minmax_element(v->values.begin(), v->values.end());
  double sum = 0;
  for (double x : v->values) sum += x;
  return {{"shape", v->shape}, {"min", *lo}, {"max", *hi}, {"mean", sum / static_cast<double>(v->values.size())}};
}

// The batch's first row's leading values (at most 48), once decoded; absent
// while they load.
void add_first_row(AppState& s, const BatchShown& b, int step, json& out) {
  std::shared_ptr<const DecodedTensor> batch;
  values_summary(s, static_cast<int64_t>(b.tensor.id()), step, &batch);
  const TensorValues* v = batch ? &batch->values : nullptr;
  if (!v || v->shape.empty()) return;
  size_t per = 1;
  for (size_t d = 1; d < v->shape.size(); ++d) per *= static_cast<size_t>(std::max<int64_t>(v->shape[d], 0));
  const size_t n = std::min<size_t>({per, 48, v->values.size()});
  out["first_row"] = std::vector<double>(v->values.begin(), v->values.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace

nlohmann::json replay_data_json(AppState& s, ReplayState& r) {
  const Stop* here = current_stop(s, r);
  if (!here || here->phase != Phase::Data) return nullptr;
  const DataShown d = data_shown(s, r.step, *here);
  json out = json::object();
  if (d.batch.state == BatchShown::State::Shown) {
    json& batch = out["batch"] = batch_json(d.batch);
    const bool images = d.batch.rows_kept > 0 && d.batch.drawn_as == BatchShown::DrawnAs::Images;
    if (!images) add_first_row(s, d.batch, r.step, batch);
  }
  if (d.sample.state == SampleShown::State::Shown) {
    json& smp = out["sample"] = sample_json(d.sample);
    smp["item_values"] = values_summary(s, d.sample.item, r.step);
    for (auto& stage : smp["stages"]) stage["values"] = values_summary(s, stage["output"].get<int64_t>(), r.step);
  }
  return out;
}

}  // namespace tvis::viewer
