// file_identity.cpp: stat + xxh64 of a file, and the recheck (file_identity.h).
#include "tvis/profiles/file_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include <xxhash.h>

namespace tvis::profiles {

namespace {

// xxh64 of the file's bytes; false when it cannot be read to the end.
bool hash_file(const std::string& path, uint64_t* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  XXH64_state_t* st = XXH64_createState();
  XXH64_reset(st, 0);
  char buf[1 << 16];
  bool ok = true;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      ok = false;
      break;
    }
    XXH64_update(st, buf, static_cast<size_t>(n));
  }
  *out = XXH64_digest(st);
  XXH64_freeState(st);
  ::close(fd);
  return ok;
}

}  // namespace

FileIdentity identify_file(const std::string& path, const std::string& role, const std::string& name) {
  FileIdentity f;
  f.role = role, f.path = path, f.name = name.empty() ? path : name;
  char real[PATH_MAX];
  struct stat s{};
  if (!::realpath(path.c_str(), real) || ::stat(real, &s) != 0 || !S_ISREG(s.st_mode)) return f;
  uint64_t h = 0;
  if (!hash_file(real, &h)) return f;
  f.present = true;
  f.resolved = real;
  f.size = static_cast<uint64_t>(s.st_size);
  f.mtime_ns = static_cast<int64_t>(s.st_mtim.tv_sec) * 1'000'000'000 + s.st_mtim.tv_nsec;
  f.inode = static_cast<uint64_t>(s.st_ino);
  f.xxh64 = h;
  return f;
}

std::string file_change(const FileIdentity& then) {
  const FileIdentity now = identify_file(then.path, then.role, then.name);
  if (then.present && !now.present) return then.name + " was removed";
  if (!then.present) return now.present ? then.name + " appeared" : "";
  if (now.resolved != then.resolved) return then.name + " now resolves to " + now.resolved;
  if (now.size != then.size || now.xxh64 != then.xxh64) return then.name + " changed";
  return "";
}

Freshness recheck_files(const std::vector<FileIdentity>& identities) {
  Freshness f;
  f.checked = !identities.empty();
  for (const auto& id : identities)
    if (std::string why = file_change(id); !why.empty()) f.reasons.push_back(std::move(why));
  f.stale = !f.reasons.empty();
  return f;
}

}  // namespace tvis::profiles
