#include "tvis/remote/run_catalog.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "tvis/format/byte_source.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/run_summary.h"
#include "tvis/json/safe.h"
#include "tvis/runs/rank_files.h"

namespace tvis::remote {

namespace fmt = tvis::format;

namespace {

std::string folder_name_of(const std::string& rel) {
  const size_t slash = rel.rfind('/');
  if (slash == std::string::npos || slash == 0) return rel;
  const size_t before = rel.rfind('/', slash - 1);
  return rel.substr(before == std::string::npos ? 0 : before + 1, slash - (before == std::string::npos ? 0 : before + 1));
}

// The rank files of the run whose file is `rel` (relative to root_dir), as
// paths relative to root_dir; just `rel` when it is not one of two or more.
std::vector<std::string> rank_files_of(const std::string& root_dir, const std::string& rel) {
  const size_t slash = rel.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : rel.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
  const auto files = runs::rank_files_in(folder.empty() ? root_dir : root_dir + "/" + folder);
  std::vector<std::string> out;
  bool named = false;
  for (const auto& [rank, file] : files) {
    const std::string file_name = runs::rank_file_name(rank);
    named = named || file_name == name;
    out.push_back(folder + file_name);
  }
  if (out.size() < 2 || !named) return {rel};
  return out;
}

nlohmann::json read_card(const std::string& root_dir, const std::string& rel) {
  const std::string path = root_dir + "/" + rel;
  nlohmann::json c = {{"path", rel}, {"name", folder_name_of(rel)}, {"size", 0},     {"mtime_ms", 0},
                      {"script", ""}, {"argv", nlohmann::json::array()}, {"steps", 0}, {"started_unix_ms", 0},
                      {"complete", false}, {"error", nullptr}};
  const std::vector<std::string> ranks = rank_files_of(root_dir, rel);
  c["ranks"] = ranks.size();
  c["rank_files"] = ranks;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    c["size"] = uint64_t(st.st_size);
    c["mtime_ms"] = int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  }
  auto source = fmt::open_file_source(path);
  if (!source.ok()) {
    c["error"] = source.status().message;
    return c;
  }
  auto reader = fmt::RunReader::open_sync(source.value());
  if (!reader.ok()) {
    c["error"] = reader.status().message;
    return c;
  }
  auto& r = *reader.value();
  c["complete"] = r.complete();
  // The last RunMeta wins (chunk_kind.h): feed only that one to the summary.
  fmt::RunSummaryBuilder builder(r);
  for (size_t i = r.chunks().size(); i-- > 0;) {
    if (r.chunks()[i].info.kind != uint16_t(fmt::ChunkKind::RunMeta)) continue;
    auto chunk = r.read_chunk_sync(uint32_t(i));
    if (!chunk.ok()) {
      c["error"] = chunk.status().message;
      return c;
    }
    builder.add(*chunk.value());
    break;
  }
  const fmt::RunSummary s = builder.finish();
  c["script"] = s.script;
  c["argv"] = s.argv;
  c["steps"] = s.steps;
  c["started_unix_ms"] = s.started_unix_ms;
  return c;
}

// One run's card; whatever reading it costs or throws (memory, a JSON
// error) stays that card's `error`, never the list's.
nlohmann::json card(const std::string& root_dir, const std::string& rel) {
  try {
    return read_card(root_dir, rel);
  } catch (const std::exception& e) {
    return {{"path", rel}, {"name", folder_name_of(rel)}, {"size", 0}, {"mtime_ms", 0}, {"script", ""},
            {"argv", nlohmann::json::array()}, {"steps", 0}, {"started_unix_ms", 0}, {"complete", false},
            {"error", std::string("this run could not be summarised: ") + e.what()}, {"ranks", 1},
            {"rank_files", nlohmann::json::array({rel})}};
  }
}

}  // namespace

std::string run_catalog_json(const std::string& root_dir, const std::vector<std::string>& run_files) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& rel : run_files) all.push_back(card(root_dir, rel));
  return safe_json::text(all);  // run folder names and scripts may be any bytes
}

}  // namespace tvis::remote
