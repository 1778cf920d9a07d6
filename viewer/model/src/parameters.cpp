#include "tvis/viewer_model/parameters.h"

#include "tvis/viewer_model/chunk_body.h"
#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

namespace {

// "layer1.0.conv1.weight" -> "layer1.0.conv1"; "" for a top-level name.
std::string module_of(const std::string& param) {
  const size_t dot = param.find_last_of('.');
  return dot == std::string::npos ? std::string() : param.substr(0, dot);
}

}  // namespace

bool Parameters::module_counts(int step, std::unordered_map<std::string, int64_t>* out) {
  bool complete = true;
  for (uint32_t ordinal : model_.chunks_of_kind(format::ChunkKind::OptimizerStep)) {
    const auto& info = model_.chunk_info(ordinal);
    if (step < info.step_first || step > info.step_last) continue;
    auto read = read_body<schema::OptimizerStepRecord>(model_.cache(), ordinal);
    if (read.state == ChunkRead::Failed) continue;
    if (read.state == ChunkRead::Loading) return false;
    if (!read.body || !read.body->params()) continue;
    for (const auto* p : *read.body->params()) {
      if (!p->name()) continue;
      bool done = true;
      TensorRef w = model_.tensors().by_id(model_, p->weight(), step, &done);
      if (!done) complete = false;
      if (!w) continue;
      (*out)[module_of(p->name()->str())] += static_cast<int64_t>(element_count(w.record()->shape()));
    }
  }
  return complete;
}

}  // namespace tvis::viewer
