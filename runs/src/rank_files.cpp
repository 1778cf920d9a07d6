#include "tvis/runs/rank_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "tvis/runs/run_file_names.h"
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

/// A folder name a claim may hold: one path component of the runs folder.
bool plain_name(const std::string& s) {
  return !s.empty() && s.size() < 256 && s != "." && s != ".." && s.find('/') == std::string::npos &&
         s.find('\0') == std::string::npos;
}

/// What the claim file names. The claim is a regular file of this user holding one folder name of
/// `runs` (never a link: a link, a FIFO, another user's file or any other content is refused, with
/// `*hostile` set, so whoever can write to a shared runs folder cannot send a launch elsewhere).
/// "" with *hostile false: no claim (yet).
std::string claimed_folder(const std::string& runs, const std::string& claim, std::string* hostile) {
  const int fd = ::open(claim.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) *hostile = "cannot read it: " + std::string(std::strerror(errno)) + " (a link is refused)";
    return "";
  }
  struct stat st {};
  std::string name;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *hostile = "not a regular file";
  } else if (st.st_uid != geteuid()) {
    *hostile = "owned by another user (uid " + std::to_string(st.st_uid) + ")";
  } else if (st.st_size > 256) {
    *hostile = "longer than a folder name";
  } else {
    char buf[257];
    ssize_t n;
    do n = ::read(fd, buf, sizeof buf); while (n < 0 && errno == EINTR);
    if (n > 0) name.assign(buf, static_cast<size_t>(n));
    if (!name.empty() && !plain_name(name)) *hostile = "does not hold a folder name of the runs folder";
  }
  ::close(fd);
  if (!hostile->empty() || name.empty()) return "";
  const std::string folder = runs + "/" + name;
  struct stat fst {};
  if (lstat(folder.c_str(), &fst) == 0 && (!S_ISDIR(fst.st_mode) || fst.st_uid != geteuid())) {
    *hostile = "names " + folder + ", which is not a folder of this user (a link is refused)";
    return "";
  }
  return folder;
}

/// Claims the launch for `name` (a folder of `runs`): a temporary file holding the name, linked to
/// `claim` (link(2) fails if the claim exists and never follows a link there). 0 or errno.
int make_claim(const std::string& claim, const std::string& name) {
  static std::atomic<unsigned> counter{0};
  const std::string tmp = claim + "." + std::to_string(getpid()) + "." + std::to_string(counter++) + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  ssize_t n;
  do n = ::write(fd, name.data(), name.size()); while (n < 0 && errno == EINTR);
  int err = n == static_cast<ssize_t>(name.size()) ? 0 : (n < 0 ? errno : EIO);
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && ::link(tmp.c_str(), claim.c_str()) != 0) err = errno;
  ::unlink(tmp.c_str());
  return err;
}

bool claim_is_stale(const std::string& claim, const std::string& folder, int rank) {
  struct stat st {};
  if (lstat(claim.c_str(), &st) != 0) return false;
  if (std::time(nullptr) - st.st_mtime > kLaunchClaimMaxAgeSeconds) return true;
  struct stat rf {};
  return lstat((folder + "/" + rank_file_name(rank)).c_str(), &rf) == 0;
}

}  // namespace

std::string rank_file_name(int rank) { return rank <= 0 ? kRunFileName : "rank" + std::to_string(rank) + ".tvis"; }

std::string join_launch_folder(const std::string& runs, const std::string& stem, const std::string& launch_key,
                               int rank, std::string* error) {
  const std::string claim = runs + "/.launch-" + key_hash(launch_key);
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string hostile;
    std::string folder = claimed_folder(runs, claim, &hostile);
    if (!hostile.empty()) {
      *error = "refusing the launch claim " + claim + ": " + hostile + "; remove it if it is yours";
      return "";
    }
    if (!folder.empty()) {
      if (!claim_is_stale(claim, folder, rank)) {
        // The claiming rank created the folder before the claim.
        struct stat st {};
        if (lstat(folder.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return folder;
        *error = "the run folder " + folder + " of this launch is missing (claimed by " + claim + ")";
        return "";
      }
      unlink(claim.c_str());
      continue;
    }
    struct stat st {};
    if (lstat(claim.c_str(), &st) == 0) {  // an empty claim: the claim is made whole by link(2), so a crashed one
      if (std::time(nullptr) - st.st_mtime > kLaunchClaimMaxAgeSeconds) unlink(claim.c_str());
      usleep(10000);
      continue;
    }
    // Not claimed: make a folder and try to claim it; on a lost race, remove it and follow the winner.
    folder = create_run_folder(runs, stem, error);
    if (folder.empty()) return "";
    const int err = make_claim(claim, fs::path(folder).filename().string());
    if (err == 0) return folder;
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
    if (!it->is_regular_file(ec)) {  // only regular files are runs (a FIFO named rank1.tvis would hang its reader)
      ec.clear();
      continue;
    }
    if (const int rank = rank_of_file_name(name); rank >= 0) found.emplace_back(rank, it->path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace tvis::runs
