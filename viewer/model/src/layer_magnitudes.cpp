#include "tvis/viewer_model/layer_magnitudes.h"

#include <cmath>

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
    for (const TensorRef& t : model_.tensors().for_event(model_, s.event, step, &done))
      if (t.rec->role() == schema::TensorRole::Output && t.rec->stats()) {
        m.activation[s.event] = t.rec->stats()->mean_abs();
        break;
      }
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
    for (const auto* p : *read.body->params()) {
      if (!p->name() || p->update() < 0) continue;
      bool done = true;
      TensorRef w = model_.tensors().by_id(model_, p->weight(), step, &done);
      TensorRef u = model_.tensors().by_id(model_, static_cast<uint64_t>(p->update()), step, &done);
      if (!done) complete = false;
      if (!w || !u || !w.rec->stats() || !u.rec->stats()) continue;
      auto& acc = sums[module_of_parameter(p->name()->str())];
      acc.first += u.rec->stats()->l2() * u.rec->stats()->l2();
      acc.second += w.rec->stats()->l2() * w.rec->stats()->l2();
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

}  // namespace tvis::viewer
