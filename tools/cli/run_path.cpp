#include "run_path.h"

#include <filesystem>
#include <system_error>

namespace tvis::cli {

namespace fs = std::filesystem;

namespace {
constexpr const char* kRunFile = "run.tvis";
}

std::string resolve_run_path(const std::string& arg, std::string* error) {
  std::error_code ec;
  const fs::path p(arg);
  const fs::file_status st = fs::status(p, ec);
  if (ec || !fs::exists(st)) {
    *error = "no such file or folder: " + arg;
    return "";
  }
  if (!fs::is_directory(st)) return arg;
  if (fs::is_regular_file(p / kRunFile, ec)) return (p / kRunFile).string();
  // A runs folder: run folders are named <YYYYmmdd-HHMMSS>_<stem>_<id>, so
  // the newest is the greatest name; the file's mtime breaks ties.
  std::string best_name;
  fs::file_time_type best_time{};
  fs::path best;
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path candidate = it->path() / kRunFile;
    if (!it->is_directory(ec) || !fs::is_regular_file(candidate, ec)) continue;
    const std::string name = it->path().filename().string();
    const std::string stamp = name.substr(0, name.find('_'));
    const fs::file_time_type t = fs::last_write_time(candidate, ec);
    if (best.empty() || stamp > best_name || (stamp == best_name && t > best_time)) {
      best_name = stamp;
      best_time = t;
      best = candidate;
    }
  }
  if (best.empty()) {
    *error = "no run in " + arg + " (no run.tvis in it or in its subfolders)";
    return "";
  }
  return best.string();
}

}  // namespace tvis::cli
