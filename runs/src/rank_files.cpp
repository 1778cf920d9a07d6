#include "tvis/runs/rank_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "tvis/runs/run_folders.h"
#include "tvis/runs/run_name.h"

namespace tvis::runs {

namespace fs = std::filesystem;

namespace {

/// FNV-1a of the key, 16 hex digits: a file name whatever the key holds.
std::string key_hash(const std::string& key) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

/// The folder a claim names (relative targets are in `runs`), or "".
std::string claimed_folder(const std::string& runs, const std::string& claim) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(claim, ec);
  if (ec) return "";
  return (target.is_absolute() ? target : fs::path(runs) / target).string();
}

bool claim_is_stale(const std::string& claim, const std::string& folder, int rank) {
  struct stat st {};
  if (lstat(claim.c_str(), &st) != 0) return false;
  if (std::time(nullptr) - st.st_mtime > kLaunchClaimMaxAgeSeconds) return true;
  std::error_code ec;
  return fs::exists(fs::path(folder) / rank_file_name(rank), ec);
}

}  // namespace

std::string rank_file_name(int rank) { return rank <= 0 ? kRunFileName : "rank" + std::to_string(rank) + ".tvis"; }

std::string join_launch_folder(const std::string& runs, const std::string& stem, const std::string& launch_key,
                               int rank, std::string* error) {
  const std::string claim = runs + "/.launch-" + key_hash(launch_key);
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string folder = claimed_folder(runs, claim);
    if (!folder.empty()) {
      if (!claim_is_stale(claim, folder, rank)) {
        // The claiming rank creates the folder right after the link.
        for (int wait = 0; wait < 200 && !fs::is_directory(folder); ++wait) usleep(10000);
        if (fs::is_directory(folder)) return folder;
        *error = "the run folder " + folder + " of this launch was not created (claimed by " + claim + ")";
        return "";
      }
      unlink(claim.c_str());
      continue;
    }
    // Not claimed: make a folder and try to claim it; on a lost race, remove it and follow the winner.
    folder = create_run_folder(runs, stem, error);
    if (folder.empty()) return "";
    if (symlink(fs::path(folder).filename().c_str(), claim.c_str()) == 0) return folder;
    const int err = errno;
    rmdir(folder.c_str());
    if (err != EEXIST) {
      *error = "cannot claim the run folder of this launch (" + claim + "): " + std::strerror(err);
      return "";
    }
  }
  *error = "cannot agree on the run folder of this launch in " + runs;
  return "";
}

std::vector<std::pair<int, std::string>> rank_files_in(const std::string& run_dir) {
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == kRunFileName) {
      found.emplace_back(0, it->path().string());
      continue;
    }
    if (name.size() <= 9 || name.compare(0, 4, "rank") != 0 || name.compare(name.size() - 5, 5, ".tvis") != 0) continue;
    const std::string digits = name.substr(4, name.size() - 9);
    if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), ::isdigit) ||
        (digits.size() > 1 && digits[0] == '0') || digits == "0")
      continue;
    found.emplace_back(std::stoi(digits), it->path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace tvis::runs
