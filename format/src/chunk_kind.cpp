#include "tvis/format/chunk_kind.h"

namespace tvis::format {

const char* chunk_kind_name(uint16_t kind) {
  switch (ChunkKind(kind)) {
    case ChunkKind::Index: return "index";
    case ChunkKind::RunMeta: return "run_meta";
    case ChunkKind::SourceFiles: return "source_files";
    case ChunkKind::Events: return "events";
    case ChunkKind::Tensors: return "tensors";
    case ChunkKind::TensorData: return "tensor_data";
    case ChunkKind::OptimizerStep: return "optimizer_step";
    case ChunkKind::Samples: return "samples";
    case ChunkKind::Loss: return "loss";
    case ChunkKind::Insights: return "insights";
    case ChunkKind::ProfileCapture: return "profile_capture";
  }
  return "unknown";
}

}  // namespace tvis::format
