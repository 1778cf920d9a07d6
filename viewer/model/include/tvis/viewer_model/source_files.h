// source_files.h: the run's SourceFiles chunks, indexed once: file id ->
// display path and recorded text.
//
// Contract: lazy and non-blocking. Each query first indexes what has arrived
// (the chunks are pinned, so text pointers stay valid for the run's life);
// ready() turns true once every SourceFiles chunk was indexed or failed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tvis/viewer_model/chunk_scan.h"
#include "tvis/viewer_model/records.h"

namespace tvis::viewer {

class RunModel;

class SourceFiles {
 public:
  explicit SourceFiles(RunModel& model) : model_(model) {}
  void reset();
  /// Every SourceFiles chunk indexed (or failed); requests the rest.
  bool ready();
  /// Display path of file `id` ("" while loading or unknown).
  const std::string& name(uint32_t id);
  /// Every file known so far, id -> display path.
  const std::unordered_map<uint32_t, std::string>& names();
  /// Recorded text of `id` (valid for the run's life: its chunks are
  /// pinned), or nullopt (*loading: a chunk may still hold it).
  std::optional<std::string_view> text(uint32_t id, bool* loading);
  /// Line `line` (1-based) of file `id`'s recorded text, leading blanks and
  /// tabs trimmed; "" when the text is not kept (or still loading), line is
  /// 0 or past the end.
  std::string line(uint32_t id, uint32_t line);

 private:
  void add(const schema::SourceFiles& files);

  RunModel& model_;
  ChunkScan scan_;
  std::unordered_map<uint32_t, std::string> names_;
  std::unordered_map<uint32_t, std::string_view> texts_;
};

}  // namespace tvis::viewer
