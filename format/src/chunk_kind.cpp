#include "tvis/format/chunk_kind.h"

#include "tvis/schema/recording_generated.h"

namespace tvis::format {

namespace {

// Every chunk kind once: its stable name and the Body member its chunks hold.
struct KindRow {
  ChunkKind kind;
  const char* name;
  schema::Body body;
};

constexpr KindRow kKinds[] = {
    {ChunkKind::Index, "index", schema::Body::NONE},
    {ChunkKind::RunMeta, "run_meta", schema::Body::RunMeta},
    {ChunkKind::SourceFiles, "source_files", schema::Body::SourceFiles},
    {ChunkKind::Events, "events", schema::Body::EventBatch},
    {ChunkKind::Tensors, "tensors", schema::Body::TensorBatch},
    {ChunkKind::TensorData, "tensor_data", schema::Body::TensorData},
    {ChunkKind::OptimizerStep, "optimizer_step", schema::Body::OptimizerStepRecord},
    {ChunkKind::Samples, "samples", schema::Body::SampleBatch},
    {ChunkKind::Loss, "loss", schema::Body::LossRecord},
    {ChunkKind::Insights, "insights", schema::Body::InsightBatch},
    {ChunkKind::ProfileCapture, "profile_capture", schema::Body::ProfileCapture},
    {ChunkKind::GradClip, "grad_clip", schema::Body::GradClipRecord},
};

// Each Body member has its kind (a union member added to recording.fbs without a row fails here).
constexpr bool every_body_has_a_kind() {
  for (int body = int(schema::Body::MIN); body <= int(schema::Body::MAX); ++body) {
    bool found = false;
    for (const auto& row : kKinds) found = found || int(row.body) == body;
    if (!found) return false;
  }
  return true;
}
static_assert(every_body_has_a_kind(), "a Body member of recording.fbs has no row in kKinds");

const KindRow* row_of(uint16_t kind) {
  for (const auto& row : kKinds)
    if (uint16_t(row.kind) == kind) return &row;
  return nullptr;
}

}  // namespace

const char* chunk_kind_name(uint16_t kind) {
  const KindRow* row = row_of(kind);
  return row ? row->name : "unknown";
}

schema::Body body_of_kind(uint16_t kind) {
  const KindRow* row = row_of(kind);
  return row ? row->body : schema::Body::NONE;
}

ChunkKind kind_of_body(schema::Body body) {
  if (body == schema::Body::NONE) return ChunkKind::Index;
  for (const auto& row : kKinds)
    if (row.body == body) return row.kind;
  return ChunkKind::Index;
}

}  // namespace tvis::format
