#include "tvis/viewer_model/insights.h"

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

namespace {

template <typename V>
bool non_empty(const V* v) {
  return v && v->size() > 0;
}

}  // namespace

void Insights::reset() {
  scan_.reset();
  kinds_ = {};
}

bool Insights::ready() {
  if (!model_.cache_if_open()) return false;
  return scan_.run<schema::InsightBatch>(model_.cache(), model_.chunks_of_kind(format::ChunkKind::Insights), false,
                                         [&](ChunkBody<schema::InsightBatch>& read) {
                                           const schema::InsightBatch& b = *read.body;
                                           kinds_.attention |= non_empty(b.attention()) || non_empty(b.library_attention());
                                           kinds_.gradcam |= non_empty(b.gradcam());
                                           kinds_.embeddings |= non_empty(b.embeddings()) || non_empty(b.tables());
                                         });
}

const InsightKinds& Insights::kinds() {
  ready();
  return kinds_;
}

}  // namespace tvis::viewer
