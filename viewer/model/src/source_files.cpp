#include "tvis/viewer_model/source_files.h"

#include "tvis/viewer_model/chunk_body.h"
#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

void SourceFiles::reset() {
  ready_ = false;
  indexed_.clear();
  names_.clear();
  texts_.clear();
}

bool SourceFiles::ready() {
  if (ready_ || !model_.cache_if_open()) return ready_;
  bool all = true;
  for (uint32_t ordinal : model_.chunks_of_kind(format::ChunkKind::SourceFiles)) {
    if (indexed_.count(ordinal)) continue;
    auto read = read_body<schema::SourceFiles>(model_.cache(), ordinal, /*pin=*/true);
    if (read.state == ChunkRead::Loading) {
      all = false;
      continue;
    }
    indexed_.insert(ordinal);
    if (!read.body || !read.body->files()) continue;
    for (const auto* f : *read.body->files()) {
      const auto* shown = f->display_path() && f->display_path()->size() ? f->display_path() : f->path();
      names_[f->id()] = shown ? shown->str() : std::string();
      if (f->text() && !texts_.count(f->id())) texts_[f->id()] = f->text();
    }
  }
  ready_ = all;
  return ready_;
}

const std::string& SourceFiles::name(uint32_t id) {
  static const std::string kEmpty;
  ready();
  auto it = names_.find(id);
  return it == names_.end() ? kEmpty : it->second;
}

const std::unordered_map<uint32_t, std::string>& SourceFiles::names() {
  ready();
  return names_;
}

const flatbuffers::String* SourceFiles::text(uint32_t id, bool* loading) {
  *loading = !ready();
  auto it = texts_.find(id);
  if (it == texts_.end()) return nullptr;
  *loading = false;
  return it->second;
}

}  // namespace tvis::viewer
