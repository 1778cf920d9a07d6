// chunk_kind.h: what a chunk holds. The container stores the kind as u16; the
// payload of every kind except Index is a FlatBuffer `tvis.schema.Chunk`
// whose body union type matches the kind (checked by the reader).
#pragma once

#include <cstdint>

namespace tvis::format {

enum class ChunkKind : uint16_t {
  Index = 0,          // the footer (container-level; not a FlatBuffer)
  RunMeta = 1,        // schema::RunMeta; the last one in the file wins
  SourceFiles = 2,    // schema::SourceFiles; one per flush that saw new files (+ finalize): readers take the union by id
  Events = 3,         // schema::EventBatch
  Tensors = 4,        // schema::TensorBatch (stats, shapes; no values)
  TensorData = 5,     // schema::TensorData (values; usually shuffled)
  OptimizerStep = 6,  // schema::OptimizerStepRecord
  Samples = 7,        // schema::SampleBatch
  Loss = 8,           // schema::LossRecord
  Insights = 9,       // schema::InsightBatch
  ProfileCapture = 10,
};

/// Stable lower-case name ("events", "tensor_data", ...); "unknown" otherwise.
const char* chunk_kind_name(uint16_t kind);

}  // namespace tvis::format
