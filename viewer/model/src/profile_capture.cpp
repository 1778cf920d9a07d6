// The run's profile capture, read once (profile_capture.h).
#include "tvis/viewer_model/profile_capture.h"

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

bool ProfileCaptureIndex::present() const {
  return model_.status() == RunStatus::Open && !model_.chunks_of_kind(format::ChunkKind::ProfileCapture).empty();
}

const CaptureGraph* ProfileCaptureIndex::graph() {
  if (graph_) return &*graph_;
  if (!present() || capture_.state == ChunkRead::Failed) return nullptr;
  if (!capture_.body)
    capture_ = read_body<schema::ProfileCapture>(model_.cache(),
                                                 model_.chunks_of_kind(format::ChunkKind::ProfileCapture)[0],
                                                 /*pin=*/true);
  if (!capture_.body) return nullptr;
  graph_ = capture_graph(*capture_.body);
  return &*graph_;
}

}  // namespace tvis::viewer
