// run_store.h: what `tvis open`'s HTTP server serves from, local or remote.
// A store is rooted at the path the user named (a runs folder, a run folder
// or a run.tvis file) and names runs by paths relative to that root
// ("20261203-061522_train_ab12cd/run.tvis"). Every method is safe to call from
// several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace tvis::remote {

/// A value or one line saying what failed.
template <class T>
struct Outcome {
  bool ok = false;
  T value{};
  std::string error;
  static Outcome good(T v) { return {true, std::move(v), {}}; }
  static Outcome bad(std::string e) { return {false, T{}, std::move(e)}; }
};

struct FileStat {
  uint64_t size = 0;
  int64_t mtime_ms = 0;
};

struct ReadResult {
  uint64_t file_size = 0;  // the file's size when it was read
  std::string bytes;       // exactly the requested length
};

class RunStore {
 public:
  virtual ~RunStore() = default;
  /// run_catalog.h's JSON array for the root, newest first.
  virtual Outcome<std::string> list() = 0;
  virtual Outcome<FileStat> stat(const std::string& path) = 0;
  /// [offset, offset+length) of `path`; fails when the file is shorter.
  virtual Outcome<ReadResult> read(const std::string& path, uint64_t offset, uint32_t length) = 0;
  /// Where the runs are, for messages and page titles ("host:path" or a path).
  virtual std::string describe() const = 0;
  /// This machine's path of the run file `path` (sandboxed as read() is), for
  /// work that needs the file itself (a capture's freshness recheck). A store
  /// whose files are elsewhere (an agent's) refuses, saying where they are.
  virtual Outcome<std::string> local_file(const std::string& path) const {
    (void)path;
    return Outcome<std::string>::bad("the runs are on " + describe() + ", not on this machine");
  }
};

/// The runs under a local `path`: a runs folder or a run folder (everything
/// below it, sandboxed: no `..`, no absolute paths, no symlink out), or one
/// run file (then only that file, by its name). Fails with one line when
/// `path` does not exist.
Outcome<std::shared_ptr<RunStore>> open_local_store(const std::string& path);

}  // namespace tvis::remote
