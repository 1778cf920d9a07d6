// run_rules.cpp: the run-file rules of runs/run_file_names.h for
// viewer_glue.js, so a dropped or chosen runs folder is read by the same C++
// as tvis and tvis-view, not a JavaScript copy. Strings in are UTF-8 (from
// ccall); a string out is valid until the next call of the same function.
#include <emscripten/emscripten.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tvis/json/safe.h"
#include "tvis/runs/run_file_names.h"

extern "C" {

/// runs::rank_of_file_name: 0 for run.tvis, k for rank<k>.tvis, else -1.
EMSCRIPTEN_KEEPALIVE int tvis_rank_of_name(const char* name) { return tvis::runs::rank_of_file_name(name ? name : ""); }

/// runs::is_found_run_file for one path relative to what was given (1 or 0).
EMSCRIPTEN_KEEPALIVE int tvis_is_found_run_file(const char* path) {
  return tvis::runs::is_found_run_file(path ? path : "") ? 1 : 0;
}

/// runs::group_found_runs over `paths_json` (a JSON array of the found
/// paths, as found): a JSON array of {name, files: [[rank, index of the
/// path], ...]}, newest first; [] for anything but an array of strings.
EMSCRIPTEN_KEEPALIVE const char* tvis_group_found_runs(const char* paths_json) {
  static std::string out;
  const nlohmann::json given = tvis::safe_json::parse(paths_json ? paths_json : "");
  std::vector<std::string> paths;
  for (const auto& p : given.is_array() ? given : nlohmann::json::array()) {
    if (!p.is_string()) return "[]";
    paths.push_back(p.get<std::string>());
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : tvis::runs::group_found_runs(paths)) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& [rank, index] : run.files) files.push_back({rank, index});
    runs.push_back({{"name", run.name}, {"files", files}});
  }
  out = tvis::safe_json::text(runs);
  return out.c_str();
}

}  // extern "C"
