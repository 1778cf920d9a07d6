// A ByteSource over a local file, read with pread. Native only.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "tvis/format/byte_source.h"

namespace tvis::format {

namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(int fd, const struct stat& st, std::string path)
      : fd_(fd), size_(uint64_t(st.st_size)), dev_(st.st_dev), ino_(st.st_ino), path_(std::move(path)) {}
  ~FileSource() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  std::string name() const override { return path_; }

  void recheck_size(SizeDone done) override {
    struct stat now {}, named {};
    if (::fstat(fd_, &now) != 0) {
      done(Status::error(ErrorCode::Io, path_ + ": " + std::strerror(errno)));
      return;
    }
    if (::stat(path_.c_str(), &named) != 0) {
      done(Status::error(ErrorCode::Io, path_ + ": the run file is gone (" + std::strerror(errno) + ")"));
      return;
    }
    if (named.st_dev != dev_ || named.st_ino != ino_) {
      done(Status::error(ErrorCode::Corrupt, path_ + ": the run file was replaced by another file; open it again"));
      return;
    }
    size_ = uint64_t(now.st_size);
    done(uint64_t(now.st_size));
  }

  void read(uint64_t offset, uint64_t length, ReadDone done) override {
    const uint64_t size = size_;
    if (offset > size || length > size - offset) {
      done(Status::error(ErrorCode::Truncated, "read past the end of " + path_));
      return;
    }
    Bytes out(length);
    uint64_t got = 0;
    while (got < length) {
      const ssize_t n = ::pread(fd_, out.data() + got, length - got, off_t(offset + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        done(Status::error(ErrorCode::Io, path_ + ": read failed: " +
                                              (n == 0 ? std::string("file shrank") : std::strerror(errno))));
        return;
      }
      got += uint64_t(n);
    }
    bytes_read_ += length;
    done(std::move(out));
  }

 private:
  int fd_;
  std::atomic<uint64_t> size_;  // recheck_size() on the frame's thread, read() on the decode worker's
  dev_t dev_;
  ino_t ino_;
  std::string path_;
};

}  // namespace

Result<std::shared_ptr<ByteSource>> open_file_source(const std::string& path) {
  // O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer
  // before its type is checked below; only regular files are runs.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Status::error(ErrorCode::Io, path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::error(ErrorCode::Io, path + ": " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::error(ErrorCode::Io, path + (S_ISDIR(st.st_mode) ? ": is a folder" : ": not a regular file"));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // a regular file: back to ordinary reads
  return std::shared_ptr<ByteSource>(std::make_shared<FileSource>(fd, st, path));
}

}  // namespace tvis::format
