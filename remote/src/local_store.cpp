// local_store.cpp: open_local_store(), the RunStore over this machine's
// files. `tvis open LOCAL_PATH` serves it and `tvis agent` answers from it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tvis/remote/run_catalog.h"
#include "tvis/remote/run_store.h"
#include "tvis/runs/rank_files.h"
#include "tvis/runs/run_folders.h"
#include "tvis/runs/run_name.h"
#include "tvis/runs/run_resolve.h"
#include "tvis/runs/sandbox_path.h"

namespace tvis::remote {

namespace fs = std::filesystem;

namespace {

class LocalRunStore : public RunStore {
 public:
  /// `root`: the folder served; `only_file`: when the user named one run
  /// file, its name (nothing else under root is served).
  LocalRunStore(std::string shown, std::string root, std::string only_file)
      : shown_(std::move(shown)), root_(std::move(root)), only_file_(std::move(only_file)) {}

  Outcome<std::string> list() override {
    std::vector<std::string> files;
    if (!only_file_.empty()) {
      files.push_back(only_file_);
    } else if (fs::is_regular_file(runs::run_file_in(root_))) {
      files.push_back(runs::kRunFileName);  // a run folder
    } else {
      for (const auto& dir : runs::list_runs(root_))
        files.push_back(fs::path(dir).filename().string() + "/" + runs::kRunFileName);
    }
    return Outcome<std::string>::good(run_catalog_json(root_, files));
  }

  Outcome<FileStat> stat(const std::string& path) override {
    std::string error;
    const std::string full = resolve(path, &error);
    if (full.empty()) return Outcome<FileStat>::bad(error, ErrorKind::Refused);
    struct stat st {};
    if (::stat(full.c_str(), &st) != 0) return Outcome<FileStat>::bad("no such run file: " + path, ErrorKind::NotFound);
    if (!S_ISREG(st.st_mode)) return Outcome<FileStat>::bad("not a run file (not a regular file): " + path, ErrorKind::NotFound);
    return Outcome<FileStat>::good({uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000});
  }

  Outcome<ReadResult> read(const std::string& path, uint64_t offset, uint32_t length) override {
    std::string error;
    const std::string full = resolve(path, &error);
    if (full.empty()) return Outcome<ReadResult>::bad(error, ErrorKind::Refused);
    // O_NONBLOCK: a FIFO must not block the open before its type is checked.
    const int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
      return Outcome<ReadResult>::bad("cannot open " + path + ": " + std::strerror(errno),
                                      errno == ENOENT || errno == ENOTDIR ? ErrorKind::NotFound : ErrorKind::Failed);
    struct stat st {};
    ReadResult out;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return Outcome<ReadResult>::bad("not a run file (not a regular file): " + path, ErrorKind::NotFound);
    }
    out.file_size = uint64_t(st.st_size);
    if (offset > out.file_size || length > out.file_size - offset) {
      ::close(fd);
      return Outcome<ReadResult>::bad("bytes " + std::to_string(offset) + "+" + std::to_string(length) + " lie past the end of " +
                                      path + " (" + std::to_string(out.file_size) + " bytes)", ErrorKind::PastEnd);
    }
    out.bytes.resize(length);
    size_t got = 0;
    while (got < length) {
      const ssize_t r = ::pread(fd, out.bytes.data() + got, length - got, off_t(offset + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        ::close(fd);
        return Outcome<ReadResult>::bad("cannot read " + path + (r < 0 ? std::string(": ") + std::strerror(errno) : ": file shrank"));
      }
      got += size_t(r);
    }
    ::close(fd);
    return Outcome<ReadResult>::good(std::move(out));
  }

  std::string describe() const override { return shown_; }

  Outcome<std::string> local_file(const std::string& path) const override {
    std::string error;
    const std::string full = resolve(path, &error);
    return full.empty() ? Outcome<std::string>::bad(error, ErrorKind::Refused) : Outcome<std::string>::good(full);
  }

 private:
  // A rank file named alone serves its run's other rank files too (the
  // viewer opens them with it: run_catalog.h's rank_files).
  bool sibling_rank_file(const std::string& path) const {
    bool only_is_rank = false, path_is_rank = false;
    for (const auto& [rank, file] : runs::rank_files_in(root_)) {
      const std::string name = runs::rank_file_name(rank);
      only_is_rank = only_is_rank || name == only_file_;
      path_is_rank = path_is_rank || name == path;
    }
    return only_is_rank && path_is_rank;
  }

  std::string resolve(const std::string& path, std::string* error) const {
    if (!only_file_.empty() && path != only_file_ && !sibling_rank_file(path)) {
      *error = "only " + only_file_ + " is served here, not " + path;
      return "";
    }
    return runs::sandboxed_path(root_, path, error);
  }

  std::string shown_, root_, only_file_;
};

}  // namespace

Outcome<std::shared_ptr<RunStore>> open_local_store(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  if (ec || !fs::exists(p)) return Outcome<std::shared_ptr<RunStore>>::bad("no such file or folder: " + path, ErrorKind::NotFound);
  if (fs::is_directory(p)) return Outcome<std::shared_ptr<RunStore>>::good(std::make_shared<LocalRunStore>(path, p.string(), ""));
  return Outcome<std::shared_ptr<RunStore>>::good(
      std::make_shared<LocalRunStore>(path, p.parent_path().string(), p.filename().string()));
}

}  // namespace tvis::remote
