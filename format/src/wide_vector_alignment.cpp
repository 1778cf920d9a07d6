#include "wide_vector_alignment.h"

namespace tvis::format {
namespace {

template <typename T>
bool aligned(const flatbuffers::Vector<T>* v) {
  static_assert(sizeof(T) == 8, "only 8-byte elements can be misaligned past the verifier");
  return v == nullptr || reinterpret_cast<uintptr_t>(v->Data()) % 8 == 0;
}

// Each walker returns the first misaligned field's name, or nullptr.
const char* check(const schema::Event* e) {
  if (!e) return nullptr;
  if (!aligned(e->inputs())) return "Event.inputs";
  if (!aligned(e->outputs())) return "Event.outputs";
  if (!aligned(e->grad_outputs())) return "Event.grad_outputs";
  if (!aligned(e->sample_grad_norms())) return "Event.sample_grad_norms";
  return nullptr;
}

const char* check(const schema::TensorRecord* t) {
  return t && !aligned(t->shape()) ? "TensorRecord.shape" : nullptr;
}

const char* check(const schema::SampleBatch* b) {
  return b && !aligned(b->batch()) ? "SampleBatch.batch" : nullptr;
}

const char* check(const schema::LossRecord* l) {
  return l && l->tokens() && !aligned(l->tokens()->ignored()) ? "TokenLayout.ignored" : nullptr;
}

const char* check(const schema::AttentionRecord* a) {
  if (!a) return nullptr;
  if (!aligned(a->shape())) return "AttentionRecord.shape";
  if (!aligned(a->tokens())) return "AttentionRecord.tokens";
  if (!aligned(a->full())) return "AttentionRecord.full";
  return nullptr;
}

const char* check(const schema::Operand* o) {
  return o && !aligned(o->shape()) ? "Operand.shape" : nullptr;
}

const char* check(const schema::GraphEdgeRecord* e) {
  return e && !aligned(e->shape()) ? "GraphEdgeRecord.shape" : nullptr;
}

const char* check(const schema::ParamShard* p) {
  if (!p) return nullptr;
  if (!aligned(p->global_shape())) return "ParamShard.global_shape";
  if (!aligned(p->local_shape())) return "ParamShard.local_shape";
  if (!aligned(p->offsets())) return "ParamShard.offsets";
  return nullptr;
}

const char* check(const schema::GraphNode* n);
const char* check(const schema::Diagnostic* d);

template <typename T>
const char* check_all(const flatbuffers::Vector<flatbuffers::Offset<T>>* items) {
  if (items)
    for (const T* item : *items)
      if (const char* bad = check(item)) return bad;
  return nullptr;
}

const char* check(const schema::GraphNode* n) {
  if (!n) return nullptr;
  if (const char* bad = check_all(n->output_shapes())) return bad;
  return check_all(n->input_shapes());
}
const char* check(const schema::Diagnostic* d) { return d ? check_all(d->operands()) : nullptr; }

const char* check(const schema::ProfileCapture* p) {
  if (!p) return nullptr;
  if (const char* bad = check_all(p->nodes())) return bad;
  if (const char* bad = check_all(p->outputs())) return bad;
  if (const char* bad = check_all(p->edges())) return bad;
  return check_all(p->diagnostics());
}

}  // namespace

const char* misaligned_wide_vector(const schema::Chunk& chunk) {
  switch (chunk.body_type()) {
    case schema::Body::EventBatch:
      return chunk.body_as_EventBatch() ? check_all(chunk.body_as_EventBatch()->events()) : nullptr;
    case schema::Body::TensorBatch:
      return chunk.body_as_TensorBatch() ? check_all(chunk.body_as_TensorBatch()->tensors()) : nullptr;
    case schema::Body::SampleBatch: return check(chunk.body_as_SampleBatch());
    case schema::Body::LossRecord: return check(chunk.body_as_LossRecord());
    case schema::Body::InsightBatch:
      return chunk.body_as_InsightBatch() ? check_all(chunk.body_as_InsightBatch()->attention()) : nullptr;
    case schema::Body::ProfileCapture: return check(chunk.body_as_ProfileCapture());
    case schema::Body::RunMeta:
      return chunk.body_as_RunMeta() ? check_all(chunk.body_as_RunMeta()->param_shards()) : nullptr;
    default: return nullptr;  // no 8-byte vectors in the other bodies
  }
}

}  // namespace tvis::format
