// The run's profile capture, read once (profile_capture.h).
#include "tvis/viewer_model/profile_capture.h"

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

bool ProfileCaptureIndex::present() const {
  return model_.status() == RunStatus::Open && !model_.chunks_of_kind(format::ChunkKind::ProfileCapture).empty();
}

const ChunkBody<schema::ProfileCapture>& ProfileCaptureIndex::get() {
  if (!present() || capture_.body || capture_.state == ChunkRead::Failed) return capture_;
  capture_ = read_body<schema::ProfileCapture>(model_.cache(), model_.chunks_of_kind(format::ChunkKind::ProfileCapture)[0],
                                               /*pin=*/true);
  return capture_;
}

}  // namespace tvis::viewer
