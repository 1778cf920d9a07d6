// byte_source.h: where a reader gets bytes. A local file, a browser File
// (Blob.slice), an HTTP server with Range, or the ssh agent all implement
// this one asynchronous interface.
//
// Contract:
//   - size() is known when the source is handed to a reader.
//   - read() delivers exactly [offset, offset+length) or an error, by calling
//     `done` once, possibly before read() returns (synchronous sources) or
//     later on the thread that pumps the source (the browser's event loop,
//     the viewer's frame). A source never calls `done` twice.
//   - A request with offset + length > size() fails with ErrorCode::Truncated
//     without touching the medium.
//   - recheck_size() asks the medium for its size now: a run still being
//     written grows (a live run, see run_reader.h RunReader::grow). It calls
//     `done` once, like read(), with the current size or the reason it cannot
//     tell (the file is gone, or a path now names another file); on success
//     size() returns that size from then on, also when it is smaller. The
//     sources whose medium cannot change (memory, a browser File) answer
//     size() unchanged.
//   - Sources count the bytes they deliver (bytes_read) so tests and
//     benchmarks can state how much a view cost; the count may be read from
//     another thread than the one reading (the viewer's decode worker).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tvis/format/error.h"

namespace tvis::format {

using Bytes = std::vector<uint8_t>;
using ReadDone = std::function<void(Result<Bytes>)>;
using SizeDone = std::function<void(Result<uint64_t>)>;

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  virtual void read(uint64_t offset, uint64_t length, ReadDone done) = 0;
  /// The medium's size now (see contract); the default: a size that never changes.
  virtual void recheck_size(SizeDone done) { done(size()); }
  /// A short human name ("run.tvis", "https://host/run.tvis").
  virtual std::string name() const = 0;
  uint64_t bytes_read() const { return bytes_read_; }

 protected:
  std::atomic<uint64_t> bytes_read_{0};
};

/// A source over a local file, read with pread; synchronous (calls `done`
/// before returning). Native builds only.
Result<std::shared_ptr<ByteSource>> open_file_source(const std::string& path);

/// A source over bytes held in memory (tests, the fuzzer, a full HTTP fetch).
std::shared_ptr<ByteSource> make_memory_source(Bytes bytes, std::string name);

}  // namespace tvis::format
