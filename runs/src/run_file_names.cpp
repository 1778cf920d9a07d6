#include "tvis/runs/run_file_names.h"

#include <algorithm>
#include <map>

#include "tvis/runs/run_name.h"

namespace tvis::runs {

namespace {

constexpr std::string_view kRunSuffix = ".tvis";

bool ends_with(std::string_view s, std::string_view end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

/// `path` split at '/'.
std::vector<std::string_view> parts_of(std::string_view path) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

}  // namespace

int rank_of_file_name(std::string_view name) {
  if (name == kRunFileName) return 0;
  if (name.size() <= 4 + kRunSuffix.size() || name.compare(0, 4, "rank") != 0 || !ends_with(name, kRunSuffix)) return -1;
  const std::string_view digits = name.substr(4, name.size() - 4 - kRunSuffix.size());
  if (digits.size() > 6 || digits[0] == '0') return -1;
  int rank = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    rank = rank * 10 + (c - '0');
  }
  return rank;
}

bool is_hidden_name(std::string_view name) { return !name.empty() && name[0] == '.'; }

bool is_found_run_file(std::string_view path) {
  if (!ends_with(path, kRunSuffix)) return false;
  const std::vector<std::string_view> parts = parts_of(path);
  if (parts.size() > static_cast<size_t>(kFoundRunMaxDepth) + 1) return false;
  return std::none_of(parts.begin() + 1, parts.end(), is_hidden_name);
}

std::vector<FoundRun> group_found_runs(const std::vector<std::string>& paths) {
  std::vector<FoundRun> runs;
  std::map<std::string_view, size_t> by_folder;  // a folder's distributed run: its index in `runs`
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string_view path = paths[i];
    const size_t slash = path.rfind('/');
    const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const std::string_view folder = slash == std::string_view::npos ? std::string_view{} : path.substr(0, slash);
    const size_t name_start = folder.rfind('/') == std::string_view::npos ? 0 : folder.rfind('/') + 1;
    const std::string name(slash == std::string_view::npos ? file : folder.substr(name_start));
    const int rank = rank_of_file_name(file);
    if (rank < 0 || slash == std::string_view::npos) {
      runs.push_back({name, {{0, i}}});
      continue;
    }
    const auto [at, added] = by_folder.emplace(folder, runs.size());
    if (added) runs.push_back({name, {}});
    runs[at->second].files.emplace_back(rank, i);
  }
  for (auto& run : runs) std::stable_sort(run.files.begin(), run.files.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::stable_sort(runs.begin(), runs.end(), [](const FoundRun& a, const FoundRun& b) { return a.name > b.name; });
  return runs;
}

}  // namespace tvis::runs
