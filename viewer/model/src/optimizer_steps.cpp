#include "tvis/viewer_model/optimizer_steps.h"

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

void OptimizerSteps::reset() {
  scan_.reset();
  by_step_.clear();
  params_.clear();
  names_.clear();
  named_.clear();
}

bool OptimizerSteps::ready() {
  if (!model_.cache_if_open()) return false;
  if (scan_.done()) return true;
  const bool done = scan_.run<schema::OptimizerStepRecord>(
      model_.cache(), model_.chunks_of_kind(format::ChunkKind::OptimizerStep), false,
      [&](ChunkBody<schema::OptimizerStepRecord>& read) {
        const int step = read.body->step();
        auto& params = params_[step];
        if (read.body->params())
          for (const auto* p : *read.body->params()) {
            if (!p || !p->name()) continue;
            params.emplace(p->name()->str(), Named{p, read.body});  // the first written wins
          }
        by_step_[step].push_back(std::move(read));
      });
  // Names in step order (chunks may arrive in any order).
  names_.clear();
  named_.clear();
  for (const auto& [step, records] : by_step_)
    for (const auto& read : records)
      if (read.body->params())
        for (const auto* p : *read.body->params())
          if (p && p->name() && !named_[p->name()->str()]) {
            named_[p->name()->str()] = true;
            names_.push_back(p->name()->str());
          }
  return done;
}

const schema::OptimizerStepRecord* OptimizerSteps::at_step(int step) {
  ready();
  auto it = by_step_.find(step);
  return it == by_step_.end() || it->second.empty() ? nullptr : it->second.front().body;
}

std::vector<const schema::OptimizerStepRecord*> OptimizerSteps::all_at_step(int step) {
  ready();
  std::vector<const schema::OptimizerStepRecord*> out;
  auto it = by_step_.find(step);
  if (it != by_step_.end())
    for (const auto& read : it->second) out.push_back(read.body);
  return out;
}

const schema::OptimizerStepRecord* OptimizerSteps::record_of(int step, const std::string& name) {
  ready();
  auto it = params_.find(step);
  if (it == params_.end()) return nullptr;
  auto p = it->second.find(name);
  return p == it->second.end() ? nullptr : p->second.record;
}

std::vector<int> OptimizerSteps::steps() {
  ready();
  std::vector<int> out;
  for (const auto& [step, read] : by_step_) out.push_back(step);
  return out;
}

const std::vector<std::string>& OptimizerSteps::names() {
  ready();
  return names_;
}

const schema::ParamRecord* OptimizerSteps::param(int step, const std::string& name) {
  ready();
  auto it = params_.find(step);
  if (it == params_.end()) return nullptr;
  auto p = it->second.find(name);
  return p == it->second.end() ? nullptr : p->second.param;
}

ParamTensors param_tensors_of(const schema::ParamRecord& p) {
  return {static_cast<int64_t>(p.weight()), p.grad(), p.update(), p.after()};
}

OptimizerStepInfo optimizer_step_info(const schema::OptimizerStepRecord& r) {
  return {r.optimizer_class() ? r.optimizer_class()->str() : "", r.skipped(), r.grad_scale()};
}

std::optional<ParamTensors> OptimizerSteps::param_tensors(int step, const std::string& name) {
  const schema::ParamRecord* p = param(step, name);
  return p ? std::optional<ParamTensors>(param_tensors_of(*p)) : std::nullopt;
}

std::optional<OptimizerStepInfo> OptimizerSteps::step_info(int step, const std::string& name) {
  const schema::OptimizerStepRecord* r = record_of(step, name);
  return r ? std::optional<OptimizerStepInfo>(optimizer_step_info(*r)) : std::nullopt;
}

std::vector<OptimizerStepInfo> OptimizerSteps::step_infos(int step) {
  std::vector<OptimizerStepInfo> out;
  for (const schema::OptimizerStepRecord* r : all_at_step(step)) out.push_back(optimizer_step_info(*r));
  return out;
}

std::vector<int> OptimizerSteps::steps_of(const std::string& name) {
  ready();
  std::vector<int> out;
  for (const auto& [step, params] : params_)
    if (params.count(name)) out.push_back(step);
  return out;
}

std::vector<std::pair<std::string, std::string>> OptimizerSteps::hyper_of(int step, const std::string& name) {
  std::vector<std::pair<std::string, std::string>> out;
  const schema::OptimizerStepRecord* rec = record_of(step, name);
  if (!rec || !rec->groups()) return out;
  for (const auto* g : *rec->groups()) {
    if (!g || !g->params()) continue;
    bool holds = false;
    for (const auto* n : *g->params())
      if (n && n->str() == name) holds = true;
    if (!holds) continue;
    if (g->hyper())
      for (const auto* kv : *g->hyper())
        if (kv && kv->key()) out.emplace_back(kv->key()->str(), kv->value() ? kv->value()->str() : "");
    break;
  }
  return out;
}

}  // namespace tvis::viewer
