#include "tvis/runs/run_folders.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>
#include <system_error>
#include <tuple>

#include "tvis/runs/run_file_names.h"
#include "tvis/runs/run_name.h"

namespace tvis::runs {

namespace fs = std::filesystem;

namespace {

/// What "newest" compares, greatest first (see run_folders.h).
struct RunOrder {
  std::string stamp;  // "" for a name that is not a run_folder_name()
  fs::file_time_type mtime;
  std::string name;
  std::string path;
  bool operator>(const RunOrder& o) const {
    return std::tie(stamp, mtime, name) > std::tie(o.stamp, o.mtime, o.name);
  }
};

RunOrder order_of(const fs::path& dir) {
  std::error_code ec;
  RunOrder r;
  r.name = dir.filename().string();
  if (auto parsed = parse_run_folder_name(r.name)) r.stamp = parsed->stamp;
  r.mtime = fs::last_write_time(dir / kRunFileName, ec);
  r.path = dir.string();
  return r;
}

bool is_run_dir(const fs::directory_entry& e) {
  std::error_code ec;
  if (is_hidden_name(e.path().filename().string())) return false;  // a launch's claim (rank_files.h)
  return e.is_directory(ec) && fs::is_regular_file(e.path() / kRunFileName, ec);
}

}  // namespace

bool ensure_runs_folder(const std::string& dir, std::string* error) {
  std::error_code ec, exists_ec;
  fs::create_directories(dir, ec);
  if (ec && !fs::exists(dir, exists_ec)) {
    *error = "cannot create runs folder " + dir + ": " + ec.message();
    return false;
  }
  if (!fs::is_directory(dir, ec)) {
    *error = "runs folder " + dir + " is not a folder";
    return false;
  }
  if (access(dir.c_str(), W_OK) != 0) {
    *error = "runs folder " + dir + " is not writable";
    return false;
  }
  return true;
}

std::string create_run_folder(const std::string& runs, const std::string& stem, std::string* error) {
  const std::time_t now = std::time(nullptr);
  std::random_device rd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    const unsigned id = rd() ^ (static_cast<unsigned>(getpid()) << 8);
    const std::string dir = runs + "/" + run_folder_name(now, stem, id);
    if (mkdir(dir.c_str(), 0777) == 0) return dir;  // atomic: a clash gives EEXIST
    if (errno != EEXIST) {
      *error = "cannot create run folder " + dir + ": " + std::strerror(errno);
      return "";
    }
  }
  *error = "cannot create a unique run folder in " + runs;
  return "";
}

std::vector<std::string> list_runs(const std::string& runs) {
  std::vector<RunOrder> found;
  std::error_code ec;
  for (fs::directory_iterator it(runs, ec), end; !ec && it != end; it.increment(ec))
    if (is_run_dir(*it)) found.push_back(order_of(it->path()));
  std::sort(found.begin(), found.end(), [](const RunOrder& a, const RunOrder& b) { return a > b; });
  std::vector<std::string> dirs;
  for (auto& r : found) dirs.push_back(std::move(r.path));
  return dirs;
}

}  // namespace tvis::runs
