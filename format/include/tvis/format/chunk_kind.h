// chunk_kind.h: what a chunk holds. The container stores the kind as u16; the
// payload of every kind except Index is a FlatBuffer `tvis.schema.Chunk`
// whose body union type matches the kind (checked by the reader). Each
// kind's name and Body member are written once, in chunk_kind.cpp's table;
// chunk_kind_name, body_of_kind and kind_of_body read it.
#pragma once

#include <cstdint>

namespace tvis::schema {
enum class Body : uint8_t;  // recording.fbs's chunk body union (recording_generated.h)
}

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
  GradClip = 11,       // schema::GradClipRecord
};

/// Stable lower-case name ("events", "tensor_data", ...); "unknown" otherwise.
const char* chunk_kind_name(uint16_t kind);

/// The Body member a chunk of `kind` holds; Body::NONE for Index and for kinds
/// this build does not know (a newer minor version may add kinds).
schema::Body body_of_kind(uint16_t kind);

/// The kind whose chunks hold `body`; Index (never a body's kind) for NONE or a
/// member this build does not know.
ChunkKind kind_of_body(schema::Body body);

}  // namespace tvis::format
