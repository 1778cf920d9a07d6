#include "tvis/viewer_model/samples.h"

#include <algorithm>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

void Samples::reset() {
  indexed_ = false;
  followed_.clear();
}

const std::vector<uint32_t>& Samples::chunks() const { return model_.chunks_of_kind(format::ChunkKind::Samples); }

ChunkCache& Samples::cache() { return model_.cache(); }

bool Samples::any() const { return model_.cache_if_open() && !chunks().empty(); }

bool Samples::holds_step(uint32_t ordinal, int step) const {
  const auto& info = model_.chunk_info(ordinal);
  return step >= info.step_first && step <= info.step_last;
}

// The first step's samples name them all: the first chunk that holds any
// samples gives the ids. A chunk still loading stops the scan until later.
void Samples::index_followed() {
  if (indexed_ || !followed_.empty() || !model_.cache_if_open()) return;
  for (uint32_t ordinal : chunks()) {
    auto read = read_body<schema::SampleBatch>(cache(), ordinal, /*pin=*/true);
    if (read.state == ChunkRead::Failed) continue;
    if (read.state == ChunkRead::Loading) return;  // try next frame
    if (read.body && read.body->samples())
      for (const auto* sample : *read.body->samples())
        if (std::find(followed_.begin(), followed_.end(), sample->id()) == followed_.end())
          followed_.push_back(sample->id());
    if (!followed_.empty()) break;
  }
  indexed_ = true;
}

const std::vector<int>& Samples::followed() {
  index_followed();
  return followed_;
}

namespace {

std::string string_of(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

SampleEntry entry_of(const schema::Sample& smp) {
  SampleEntry e;
  e.id = smp.id();
  e.step = smp.step();
  e.dataset_index = smp.dataset_index();
  e.batch_position = smp.batch_position();
  e.label = string_of(smp.label());
  e.label_index = smp.label_index();
  e.input = smp.input();
  if (smp.transforms())
    for (const schema::TransformStep* t : *smp.transforms())
      e.transforms.push_back({string_of(t->name()), string_of(t->class_name()), t->event(), t->input(), t->output(),
                              t->input_kind(), t->output_kind()});
  return e;
}

}  // namespace

bool Samples::step_samples(int step, std::vector<SampleEntry>* out) {
  out->clear();
  return for_step(step, [&](const schema::Sample* smp) { out->push_back(entry_of(*smp)); });
}

int Samples::position(int id) {
  const auto& ids = followed();
  auto it = std::find(ids.begin(), ids.end(), id);
  return it == ids.end() ? -1 : static_cast<int>(it - ids.begin());
}

}  // namespace tvis::viewer
