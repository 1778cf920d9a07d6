#include "tvis/viewer_model/layer_magnitudes.h"

#include <algorithm>
#include <cmath>

#include "tvis/viewer_model/call_tensors.h"
#include "tvis/viewer_model/chunk_body.h"
#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

std::string module_of_parameter(const std::string& param) {
  const size_t dot = param.find_last_of('.');
  return dot == std::string::npos ? std::string() : param.substr(0, dot);
}

double StepMagnitudes::gradient_of(uint64_t event, int position) const {
  auto s = sample_gradient.find(event);
  if (s != sample_gradient.end() && position >= 0 && static_cast<size_t>(position) < s->second.size())
    return s->second[static_cast<size_t>(position)];
  auto g = gradient.find(event);
  return g == gradient.end() ? -1.0 : g->second;
}

const StepMagnitudes& LayerMagnitudes::at(const StepPlan& plan) {
  StepMagnitudes& out = steps_[plan.step];
  if (out.complete) return out;
  StepMagnitudes m;
  bool complete = true;
  const int step = plan.step;
  for (const Stop& s : plan.stops) {
    if (s.phase != schema::Phase::Forward || s.kind != schema::EventKind::ModuleCall) continue;
    if (const schema::Event* e = model_.event(s.event)) {
      if (e->grad_norm() >= 0) m.gradient[s.event] = e->grad_norm();
      if (e->sample_grad_norms() && e->sample_grad_norms()->size())
        m.sample_gradient[s.event].assign(e->sample_grad_norms()->begin(), e->sample_grad_norms()->end());
    } else {
      complete = false;
    }
    bool done = true;
    const TensorRef out = call_tensor(model_, s.event, false, &done);
    if (out && out.record()->stats()) m.activation[s.event] = out.record()->stats()->mean_abs();
    if (!done) complete = false;
  }
  std::map<std::string, std::pair<double, double>> sums;  // module -> (sum dw^2, sum w^2)
  for (uint32_t ordinal : model_.chunks_of_kind(format::ChunkKind::OptimizerStep)) {
    const auto& info = model_.chunk_info(ordinal);
    if (step < info.step_first || step > info.step_last) continue;
    auto read = read_body<schema::OptimizerStepRecord>(model_.cache(), ordinal);
    if (read.state == ChunkRead::Failed) continue;
    if (read.state == ChunkRead::Loading) {
      complete = false;
      continue;
    }
    if (!read.body || read.body->step() != step || !read.body->params()) continue;
    m.optimizer_recorded = true;
    if (read.body->optimizer_class() && m.optimizer_class.empty()) m.optimizer_class = read.body->optimizer_class()->str();
    for (const auto* p : *read.body->params()) {
      if (!p->name() || p->update() < 0) continue;
      bool done = true;
      TensorRef w = model_.tensors().by_id(model_, p->weight(), step, &done);
      TensorRef u = model_.tensors().by_id(model_, static_cast<uint64_t>(p->update()), step, &done);
      if (!done) complete = false;
      if (!w || !u || !w.record()->stats() || !u.record()->stats()) continue;
      auto& acc = sums[module_of_parameter(p->name()->str())];
      acc.first += u.record()->stats()->l2() * u.record()->stats()->l2();
      acc.second += w.record()->stats()->l2() * w.record()->stats()->l2();
    }
  }
  for (const auto& [module, acc] : sums) {
    m.update_norm[module] = std::sqrt(acc.first);
    if (acc.second > 0) m.update_ratio[module] = std::sqrt(acc.first) / std::sqrt(acc.second);
  }
  m.complete = complete;
  out = std::move(m);
  return out;
}

const SampleActivation& LayerMagnitudes::sample_activation(const StepPlan& plan, int row, size_t through) {
  SampleActivation& out = rows_[{plan.step, row}];
  through = std::min(through, plan.stops.size());
  for (; out.scanned < through; ++out.scanned) {
    const Stop& s = plan.stops[out.scanned];
    if (s.phase == schema::Phase::Forward && s.kind == schema::EventKind::ModuleCall) out.pending.push_back(s.event);
  }
  if (out.pending.empty()) {
    out.complete = row >= 0;
    return out;
  }
  int decodes = 0;
  std::vector<uint64_t> still, waiting;  // waiting: a container whose part has not been decided yet
  for (uint64_t event : out.pending) {
    if (decodes >= kDecodesPerCall || row < 0) {
      still.push_back(event);
      continue;
    }
    bool done = true;
    const TensorRef output = call_tensor(model_, event, false, &done);
    // A call whose output another forward call recorded (a container
    // returning its last part's output: one tensor) takes that call's value
    // once it is decided, without decoding the tensor again.
    const int64_t owner = output ? output.record()->event() : -1;
    if (owner >= 0 && static_cast<uint64_t>(owner) != event && plan.find(static_cast<uint64_t>(owner), Phase::Forward) >= 0) {
      if (auto a = out.mean_abs.find(static_cast<uint64_t>(owner)); a != out.mean_abs.end()) out.mean_abs[event] = a->second;
      else if (out.not_kept.count(static_cast<uint64_t>(owner))) out.not_kept[event] = true;
      else waiting.push_back(event);
      continue;
    }
    if (!output) {
      if (done) out.not_kept[event] = true;
      else still.push_back(event);
      continue;
    }
    const schema::TensorRecord& rec = *output.record();
    const int64_t rows = rec.kept() == schema::ValuesKept::LeadingRows ? rec.kept_rows()
                         : rec.kept() == schema::ValuesKept::Full && rec.shape() && rec.shape()->size() > 0
                             ? rec.shape()->Get(0)
                             : 0;
    if (row >= rows) {  // statistics only, a 0-d output, or the row past the kept leading rows
      out.not_kept[event] = true;
      continue;
    }
    TensorValues v;
    std::string error;
    if (model_.tensors().read_values(model_, rec, &v, &error) == ChunkRead::Loading) {
      still.push_back(event);
      continue;
    }
    ++decodes;
    const size_t kept = v.shape.empty() ? 0 : static_cast<size_t>(std::max<int64_t>(v.shape[0], 0));
    if (!error.empty() || kept == 0 || static_cast<size_t>(row) >= kept || v.values.size() % kept) {
      out.not_kept[event] = true;
      continue;
    }
    const size_t per = v.values.size() / kept;
    double sum = 0;
    for (size_t i = 0; i < per; ++i) sum += std::fabs(v.values[static_cast<size_t>(row) * per + i]);
    out.mean_abs[event] = per ? sum / static_cast<double>(per) : 0.0;
  }
  out.complete = still.empty() && row >= 0;  // a waiting container is decided with its part, asked for later
  still.insert(still.end(), waiting.begin(), waiting.end());
  out.pending = std::move(still);
  return out;
}

}  // namespace tvis::viewer
