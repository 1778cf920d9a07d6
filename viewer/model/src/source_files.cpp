#include "tvis/viewer_model/source_files.h"

#include <cstring>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

void SourceFiles::reset() {
  scan_.reset();
  names_.clear();
  texts_.clear();
}

void SourceFiles::add(const schema::SourceFiles& files) {
  if (!files.files()) return;
  for (const auto* f : *files.files()) {
    const auto* shown = f->display_path() && f->display_path()->size() ? f->display_path() : f->path();
    names_[f->id()] = shown ? shown->str() : std::string();
    if (f->text() && !texts_.count(f->id())) texts_[f->id()] = std::string_view(f->text()->c_str(), f->text()->size());
  }
}

bool SourceFiles::ready() {
  if (!model_.cache_if_open()) return scan_.done();
  // Pinned: the text pointers stay valid for the run's life.
  return scan_.run<schema::SourceFiles>(model_.cache(), model_.chunks_of_kind(format::ChunkKind::SourceFiles),
                                        /*pin=*/true,
                                        [&](ChunkBody<schema::SourceFiles>& read) { add(*read.body); });
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

std::optional<std::string_view> SourceFiles::text(uint32_t id, bool* loading) {
  *loading = !ready();
  auto it = texts_.find(id);
  if (it == texts_.end()) return std::nullopt;
  *loading = false;
  return it->second;
}

std::string SourceFiles::line(uint32_t id, uint32_t line) {
  bool loading = false;
  const std::optional<std::string_view> text = this->text(id, &loading);
  if (!text || line == 0) return "";
  const char* p = text->data();
  const char* end = p + text->size();
  for (uint32_t n = 1; n < line && p < end; ++n) {
    p = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!p) return "";
    ++p;
  }
  const char* e = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
  std::string out(p, e ? e : end);
  const size_t first = out.find_first_not_of(" \t");
  return first == std::string::npos ? "" : out.substr(first);
}

}  // namespace tvis::viewer
