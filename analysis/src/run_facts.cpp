#include "tvis/analysis/run_facts.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/copy_budget.h"
#include "tvis/schema/recording_generated.h"
#include "tvis/format/fb_string.h"

namespace tvis::analysis {

namespace {

using format::str;

template <typename T>
std::vector<T> list(const flatbuffers::Vector<T>* v) {
  return v ? std::vector<T>(v->begin(), v->end()) : std::vector<T>();
}

std::vector<std::pair<std::string, std::string>> pairs(
    const flatbuffers::Vector<flatbuffers::Offset<schema::KeyValue>>* kvs) {
  std::vector<std::pair<std::string, std::string>> out;
  if (kvs)
    for (const auto* kv : *kvs) out.emplace_back(str(kv->key()), str(kv->value()));
  return out;
}

Stats stats_of(const schema::Stats* s) {
  Stats o;
  if (!s) return o;
  o.present = true;
  o.count = s->count(), o.finite = s->finite_count(), o.nan = s->nan_count(), o.inf = s->inf_count();
  o.min = s->min(), o.max = s->max(), o.mean = s->mean(), o.std = s->std(), o.mean_abs = s->mean_abs();
  o.l2 = s->l2();
  return o;
}

double number_or_nan(const std::string& text) {
  if (text.empty()) return std::nan("");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end && *end == '\0' ? v : std::nan("");
}

}  // namespace

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::Data: return "data";
    case Phase::Forward: return "forward";
    case Phase::Loss: return "loss";
    case Phase::Backward: return "backward";
    case Phase::Optimizer: return "optimizer";
    case Phase::Evaluation: return "evaluation";
    default: return "";
  }
}

bool RunFacts::wants(uint16_t kind) {
  using format::ChunkKind;
  switch (static_cast<ChunkKind>(kind)) {
    case ChunkKind::RunMeta:
    case ChunkKind::Events:
    case ChunkKind::Tensors:
    case ChunkKind::OptimizerStep:
    case ChunkKind::Samples:
    case ChunkKind::Loss: return true;
    default: return false;
  }
}

format::Status RunFacts::add_chunk(const format::DecodedChunk& chunk) {
  const schema::Chunk* root = chunk.root();
  if (!root) return format::Status::ok();
  // Below, each table's strings and vectors are copied once per table that
  // names them: within a bounded multiple of the body only after this check.
  if (format::Status bounded = format::check_copy_budget(chunk); !bounded) return bounded;
  if (const auto* m = root->body_as_RunMeta()) {  // the last one wins
    RunMetaFact meta;
    meta.capture = m->kind() == schema::RunKind::ProfileCapture;
    meta.steps_requested = m->steps_requested(), meta.steps_recorded = m->steps_recorded();
    meta.complete = m->complete(), meta.exception = str(m->exception());
    if (m->notices())
      for (const auto* n : *m->notices()) meta.notices.push_back({str(n->code()), str(n->message())});
    for (const auto& [k, v] : pairs(m->options())) {
      const double x = number_or_nan(v);
      if (!(x >= 0 && x < 1e6)) continue;
      if (k == "rank") meta.rank = static_cast<int>(x);
      if (k == "world_size" && x >= 1) meta.world_size = static_cast<int>(x);
    }
    if (m->param_shards())
      for (const auto* s : *m->param_shards()) meta.sharded.push_back(str(s->name()));
    meta_ = std::move(meta);
  }
  if (const auto* b = root->body_as_EventBatch(); b && b->events())
    for (const auto* e : *b->events()) {
      EventFact f;
      f.id = e->id(), f.parent = e->parent(), f.kind = static_cast<EventKind>(e->kind()), f.step = e->step();
      f.phase = static_cast<Phase>(e->phase()), f.name = str(e->name()), f.class_name = str(e->class_name());
      f.t_begin_ns = e->t_begin_ns(), f.inputs = list(e->inputs()), f.outputs = list(e->outputs());
      f.grad_outputs = list(e->grad_outputs()), f.grad_norm = e->grad_norm(), f.detail = EventDetail(e->detail());
      events_.push_back(std::move(f));
    }
  if (const auto* b = root->body_as_TensorBatch(); b && b->tensors())
    for (const auto* t : *b->tensors()) {
      TensorFact f;
      f.id = t->id(), f.event = t->event(), f.role = static_cast<Role>(t->role()), f.slot = t->slot();
      f.name = str(t->name()), f.step = t->step(), f.sample = t->sample(), f.shape = list(t->shape());
      f.dtype = static_cast<int>(t->dtype());
      f.stats = stats_of(t->stats());
      tensors_.push_back(std::move(f));
    }
  if (const auto* o = root->body_as_OptimizerStepRecord()) {
    StepFact s;
    s.step = o->step(), s.event = o->event(), s.optimizer_class = str(o->optimizer_class()), s.skipped = o->skipped();
    std::unordered_map<std::string, int> group_of;
    if (o->groups())
      for (const auto* g : *o->groups()) {
        GroupFact group{pairs(g->hyper())};
        s.lrs.push_back(group.number("lr"));
        if (g->params())
          for (const auto* name : *g->params()) group_of.emplace(str(name), static_cast<int>(s.groups.size()));
        s.groups.push_back(std::move(group));
      }
    if (o->params())
      for (const auto* p : *o->params()) {
        const std::string name = str(p->name());
        const auto g = group_of.find(name);
        s.params.push_back({name, p->weight(), p->grad(), p->update(), p->after(),
                            g == group_of.end() ? (s.groups.size() == 1 ? 0 : -1) : g->second});
      }
    steps_.push_back(std::move(s));
  }
  if (const auto* l = root->body_as_LossRecord()) {
    LossFact f;
    f.step = l->step(), f.event = l->event(), f.call = str(l->call()), f.reduction = str(l->reduction());
    f.outer = str(l->outer()), f.value = l->value(), f.call_value = l->call_value();
    f.targets = l->targets(), f.logits = l->logits();
    f.args = pairs(l->args());
    if (l->tokens()) f.ignore_index = l->tokens()->ignore_index();
    for (const auto& [k, v] : f.args) {
      const double index = k == "ignore_index" ? number_or_nan(v) : std::nan("");
      if (std::fabs(index) < 9.0e18) f.ignore_index = static_cast<int64_t>(index);  // NaN and huge values: kept as is
    }
    losses_.push_back(std::move(f));
  }
  if (const auto* b = root->body_as_SampleBatch())
    batches_.push_back({b->step(), b->batch_event(), list(b->batch())});
  return format::Status::ok();
}

double GroupFact::number(const char* key) const {
  for (const auto& [k, v] : hyper)
    if (k == key) return number_or_nan(v);
  return std::nan("");
}

double StepFact::lr_of(const ParamFact& p) const {
  return p.group >= 0 && size_t(p.group) < lrs.size() ? lrs[p.group] : std::nan("");
}

const NoticeFact* RunFacts::notice(const char* code) const {
  for (const NoticeFact& n : meta_.notices)
    if (n.code == code) return &n;
  return nullptr;
}

void RunFacts::finish() {
  std::stable_sort(events_.begin(), events_.end(), [](const EventFact& a, const EventFact& b) { return a.id < b.id; });
  std::stable_sort(steps_.begin(), steps_.end(), [](const StepFact& a, const StepFact& b) { return a.step < b.step; });
  std::stable_sort(losses_.begin(), losses_.end(), [](const LossFact& a, const LossFact& b) { return a.step < b.step; });
  std::stable_sort(batches_.begin(), batches_.end(), [](const BatchFact& a, const BatchFact& b) { return a.step < b.step; });
  event_at_.clear(), tensor_at_.clear();
  for (size_t i = 0; i < events_.size(); ++i) event_at_.emplace(events_[i].id, i);
  for (size_t i = 0; i < tensors_.size(); ++i) tensor_at_.emplace(tensors_[i].id, i);
}

const EventFact* RunFacts::event(int64_t id) const {
  if (id < 0) return nullptr;
  auto it = event_at_.find(static_cast<uint64_t>(id));
  return it == event_at_.end() ? nullptr : &events_[it->second];
}

const TensorFact* RunFacts::tensor(int64_t id) const {
  if (id < 0) return nullptr;
  auto it = tensor_at_.find(static_cast<uint64_t>(id));
  return it == tensor_at_.end() ? nullptr : &tensors_[it->second];
}

format::Status load_facts(format::RunReader& reader, RunFacts& facts, LoadCost* cost) {
  LoadCost c;
  for (const format::ChunkEntry& entry : reader.chunks()) {
    const uint64_t stored = entry.compressed_size + format::kChunkHeaderSize;
    if (!RunFacts::wants(entry.info.kind)) {
      c.chunks_skipped += 1, c.bytes_skipped += stored;
      continue;
    }
    auto chunk = reader.read_chunk_sync(entry.ordinal);
    if (!chunk.ok()) return chunk.status();
    c.chunks_read += 1, c.bytes_read += stored;
    if (format::Status added = facts.add_chunk(*chunk.value()); !added) return added;
  }
  facts.finish();
  if (cost) *cost = c;
  return format::Status::ok();
}

}  // namespace tvis::analysis
