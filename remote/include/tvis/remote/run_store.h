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

/// What kind of failure an Outcome is: callers (the HTTP server's status,
/// the agent protocol's Error frames) decide by the kind, never by the text.
enum class ErrorKind : uint8_t {
  Failed = 0,       // anything else (a read error)
  Refused = 1,      // the path is outside what is served (.., absolute, symlink out, not the named file)
  NotFound = 2,     // no such run file (or not a regular file: only those are runs)
  PastEnd = 3,      // the bytes asked for lie past the file's end
  Unreachable = 4,  // the agent could not be started, or its connection was lost
  TimedOut = 5,     // the agent did not answer in time
  Malformed = 6,    // the agent's reply breaks the protocol
  TooLarge = 7,     // a reply or request over a limit
};

/// A value or one line saying what failed, and its kind.
template <class T>
struct Outcome {
  bool ok = false;
  T value{};
  std::string error;
  ErrorKind kind = ErrorKind::Failed;
  static Outcome good(T v) { return {true, std::move(v), {}, ErrorKind::Failed}; }
  static Outcome bad(std::string e, ErrorKind k = ErrorKind::Failed) { return {false, T{}, std::move(e), k}; }
  /// The same failure as another outcome's.
  template <class U>
  static Outcome fail_as(const Outcome<U>& o) { return {false, T{}, o.error, o.kind}; }
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
