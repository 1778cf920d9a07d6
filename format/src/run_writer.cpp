// The write half (run_writer.h): one background thread encodes queued chunks
// in ordinal order and appends each with a single write, so the file on disk
// is at every moment a header followed by whole chunks plus at most one torn
// chunk at the end, which the reader's recovery scan drops.
#include "tvis/format/run_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "endian.h"
#include "tvis/format/chunk_encoder.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/container_codec.h"

namespace tvis::format {

struct RunWriter::Impl {
  struct Pending {
    ChunkInfo info;
    uint32_t ordinal = 0;
    Bytes raw;
  };

  std::string path;
  WriterOptions options;
  int fd = -1;
  ChunkEncoder encoder;

  mutable std::mutex mu;
  std::condition_variable work_cv;   // queue gained a chunk, or stop was asked
  std::condition_variable space_cv;  // backlog shrank
  std::deque<Pending> queue;
  uint32_t next_ordinal = 0;
  bool stop = false;            // drain the queue, then leave the thread
  bool write_footer = false;    // ... and finalize the file first
  bool finalized = false;
  Status final_status;
  Status first_error;
  WriterStats stats;
  std::thread thread;

  // Touched by the writer thread only.
  std::vector<ChunkEntry> index;
  uint64_t offset = kFileHeaderSize;
  Bytes encoded;

  Impl(std::string p, WriterOptions o, int f) : path(std::move(p)), options(o), fd(f), encoder(o.zstd_level) {}

  void set_error(Status s) {
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.is_ok()) first_error = std::move(s);
  }
  bool failed() const {
    std::lock_guard<std::mutex> lock(mu);
    return !first_error.is_ok();
  }

  Status write_all(const uint8_t* data, uint64_t size) {
    uint64_t done = 0;
    while (done < size) {
      const ssize_t n = ::pwrite(fd, data + done, size_t(size - done), off_t(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::error(ErrorCode::Io, path + ": write failed: " + std::strerror(errno));
      done += uint64_t(n);
    }
    offset += size;
    std::lock_guard<std::mutex> lock(mu);
    stats.file_bytes = offset;
    return Status::ok();
  }

  void write_chunk(const Pending& p) {
    ChunkEntry entry;
    Status s = encoder.encode(p.info, p.ordinal, p.raw.data(), p.raw.size(), &encoded, &entry);
    if (!s) return set_error(Status::error(s.code, path + ": chunk " + std::to_string(p.ordinal) + " (" +
                                                       chunk_kind_name(p.info.kind) + "): " + s.message));
    entry.offset = offset;
    s = write_all(encoded.data(), encoded.size());
    if (!s) return set_error(s);
    index.push_back(entry);
  }

  // Footer (kind Index: u64 count + entries) then trailer, then fsync.
  Status write_footer_and_trailer() {
    const uint64_t count = index.size();
    Bytes body(8 + count * kIndexEntrySize);
    le::put64(body.data(), count);
    for (uint64_t i = 0; i < count; ++i) encode_index_entry(index[i], body.data() + 8 + i * kIndexEntrySize);
    ChunkInfo info;
    info.kind = uint16_t(ChunkKind::Index);
    ChunkEntry footer;
    Status s = encoder.encode(info, uint32_t(count), body.data(), body.size(), &encoded, &footer);
    if (!s) return Status::error(s.code, path + ": footer: " + s.message);
    Trailer trailer;
    trailer.footer_offset = offset;
    trailer.footer_size = encoded.size();
    trailer.chunk_count = uint32_t(count);
    uint8_t tail[kTrailerSize];
    encode_trailer(trailer, tail);
    encoded.insert(encoded.end(), tail, tail + kTrailerSize);
    s = write_all(encoded.data(), encoded.size());
    if (!s) return s;
    if (::fsync(fd) != 0) return Status::error(ErrorCode::Io, path + ": fsync failed: " + std::strerror(errno));
    return Status::ok();
  }

  void run() {
    for (;;) {
      Pending p;
      {
        std::unique_lock<std::mutex> lock(mu);
        work_cv.wait(lock, [&] { return !queue.empty() || stop; });
        if (queue.empty()) break;
        p = std::move(queue.front());
        queue.pop_front();
      }
      if (!failed()) write_chunk(p);
      {
        std::lock_guard<std::mutex> lock(mu);
        stats.backlog_bytes -= p.raw.size();
        stats.compress_seconds = encoder.busy_seconds();
        if (first_error.is_ok()) {
          stats.chunks += 1;
          stats.raw_bytes += p.raw.size();
        }
      }
      space_cv.notify_all();
    }
    bool footer;
    {
      std::lock_guard<std::mutex> lock(mu);
      footer = write_footer;
    }
    if (footer && !failed()) {
      Status s = write_footer_and_trailer();
      if (!s) set_error(s);
    }
    ::close(fd);
    fd = -1;
  }

  // Asks the thread to drain and leave; joins it.
  void stop_thread(bool with_footer) {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
      write_footer = write_footer || with_footer;
    }
    work_cv.notify_all();
    if (thread.joinable()) thread.join();
  }
};

Result<std::unique_ptr<RunWriter>> RunWriter::create(const std::string& path, WriterOptions options) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::error(ErrorCode::Io, path + ": cannot create: " + std::strerror(errno));
  auto impl = std::make_unique<Impl>(path, options, fd);
  FileHeader header;
  header.version_minor = options.version_minor;
  uint8_t bytes[kFileHeaderSize];
  encode_file_header(header, bytes);
  impl->offset = 0;
  Status s = impl->write_all(bytes, kFileHeaderSize);
  if (!s) {
    ::close(fd);
    return s;
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<RunWriter>(new RunWriter(std::move(impl)));
}

RunWriter::RunWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RunWriter::~RunWriter() { impl_->stop_thread(false); }

uint32_t RunWriter::append(const ChunkInfo& info, Bytes raw) {
  Impl& m = *impl_;
  const uint64_t size = raw.size();
  std::unique_lock<std::mutex> lock(m.mu);
  if (m.stop) {
    if (m.first_error.is_ok())
      m.first_error = Status::error(ErrorCode::Io, m.path + ": chunk appended after finalize()");
    return UINT32_MAX;
  }
  // A chunk larger than the whole budget still goes through once the queue is empty.
  m.space_cv.wait(lock, [&] {
    return m.stats.backlog_bytes == 0 || m.stats.backlog_bytes + size <= m.options.max_backlog_bytes ||
           !m.first_error.is_ok();
  });
  const uint32_t ordinal = m.next_ordinal++;
  m.stats.backlog_bytes += size;
  if (m.stats.backlog_bytes > m.stats.peak_backlog_bytes) m.stats.peak_backlog_bytes = m.stats.backlog_bytes;
  m.queue.push_back(Impl::Pending{info, ordinal, std::move(raw)});
  lock.unlock();
  m.work_cv.notify_one();
  return ordinal;
}

Status RunWriter::finalize() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->finalized) return impl_->final_status;
  }
  impl_->stop_thread(true);
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->finalized = true;
  impl_->final_status = impl_->first_error;
  return impl_->final_status;
}

Status RunWriter::error() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->first_error;
}

WriterStats RunWriter::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

}  // namespace tvis::format
