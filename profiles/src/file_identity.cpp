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

// The identity of the regular file at the resolved path `real`: opened
// non-blocking (a FIFO put there cannot stall us) and type-checked on the
// open descriptor, so what is hashed is what was checked. False when it is
// not a regular file, is larger than `max_bytes` or cannot be read to the end.
bool identify_open_file(const char* real, uint64_t max_bytes, FileIdentity* f) {
  const int fd = ::open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat s{};
  bool ok = ::fstat(fd, &s) == 0 && S_ISREG(s.st_mode) && static_cast<uint64_t>(s.st_size) <= max_bytes;
  XXH64_state_t* st = XXH64_createState();
  XXH64_reset(st, 0);
  char buf[1 << 16];
  uint64_t total = 0;
  while (ok) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (n < 0 || total > max_bytes) ok = false;  // a file growing past the bound counts as unreadable
    else XXH64_update(st, buf, static_cast<size_t>(n));
  }
  f->xxh64 = XXH64_digest(st);
  XXH64_freeState(st);
  ::close(fd);
  if (!ok) return false;
  f->size = static_cast<uint64_t>(s.st_size);
  f->mtime_ns = static_cast<int64_t>(s.st_mtim.tv_sec) * 1'000'000'000 + s.st_mtim.tv_nsec;
  f->inode = static_cast<uint64_t>(s.st_ino);
  return true;
}

FileIdentity identify(const std::string& path, const std::string& role, const std::string& name, uint64_t max_bytes) {
  FileIdentity f;
  f.role = role, f.path = path, f.name = name.empty() ? path : name;
  char real[PATH_MAX];
  if (!::realpath(path.c_str(), real)) return f;
  FileIdentity got = f;
  if (!identify_open_file(real, max_bytes, &got)) return f;
  got.present = true;
  got.resolved = real;
  return got;
}

}  // namespace

FileIdentity identify_file(const std::string& path, const std::string& role, const std::string& name) {
  return identify(path, role, name, UINT64_MAX);
}

std::string file_change(const FileIdentity& then) { return file_change_within(then, UINT64_MAX); }

std::string file_change_within(const FileIdentity& then, uint64_t max_bytes) {
  const FileIdentity now = identify(then.path, then.role, then.name, max_bytes);
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
