// The write half (run_writer.h). Two background threads form a pipeline:
//   encoder thread: takes raw chunks in ordinal order, filters, compresses,
//                   checksums (ChunkEncoder, one reused ZSTD_CCtx);
//   I/O thread:     appends each encoded chunk with a single pwrite at the
//                   end of the file, records its index entry, starts
//                   writeback; at finalize writes footer, trailer, fsync.
// So compression overlaps the disk, and the file on disk is at every moment a
// header followed by whole chunks plus at most one torn chunk at the end,
// which the reader's recovery scan drops.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  // sync_file_range
#endif
#include "tvis/format/run_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
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

namespace {
using SteadyClock = std::chrono::steady_clock;
double seconds_since(SteadyClock::time_point t0) {
  return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}
constexpr uint64_t kWritebackBytes = 8u << 20;  // start writeback every 8 MB
constexpr size_t kMaxEncodedQueue = 8;          // encoded chunks waiting for the disk
constexpr size_t kSpareRawBuffers = 4;          // encoded raw buffers kept for reuse_buffer()
constexpr uint64_t kMinSpareRaw = 1u << 20;     // ... when at least this large
}  // namespace

struct RunWriter::Impl {
  struct Pending {
    ChunkInfo info;
    uint32_t ordinal = 0;
    Bytes raw;
    int level = 0;
  };
  struct Encoded {
    ChunkEntry entry;  // offset set by the I/O thread
    Bytes bytes;       // header + payload
  };

  std::string path;
  WriterOptions options;
  int fd = -1;
  ChunkEncoder encoder;  // encoder thread only

  mutable std::mutex mu;
  std::condition_variable raw_cv;      // raw queue gained a chunk, or stop was asked
  std::condition_variable space_cv;    // raw backlog shrank
  std::condition_variable encoded_cv;  // encoded queue changed, or the encoder finished
  std::deque<Pending> raw_queue;
  std::deque<Encoded> encoded_queue;
  std::vector<Bytes> spare;  // written buffers returned for reuse by the encoder
  std::vector<Bytes> spare_raw;  // encoded raw buffers for reuse_buffer()
  uint32_t next_ordinal = 0;
  bool stop = false;          // drain everything, then leave the threads
  bool write_footer = false;  // ... and finalize the file first
  bool encoder_done = false;
  bool finalized = false;
  Status final_status;
  Status first_error;
  WriterStats stats;
  std::thread encoder_thread, io_thread;

  // I/O thread only.
  std::vector<ChunkEntry> index;
  uint64_t offset = 0;
  uint64_t writeback_from = 0;  // bytes before it have had writeback started
  uint64_t dropped_to = 0;      // bytes before it are on disk and out of the page cache

  Impl(std::string p, WriterOptions o, int f) : path(std::move(p)), options(o), fd(f), encoder(o.zstd_level) {}

  void set_error(Status s) {
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.is_ok()) first_error = std::move(s);
  }
  bool failed() const {
    std::lock_guard<std::mutex> lock(mu);
    return !first_error.is_ok();
  }

  void add_io_time(SteadyClock::time_point t0) {
    const double s = seconds_since(t0);
    std::lock_guard<std::mutex> lock(mu);
    stats.io_seconds += s;
  }

  Status write_all(const uint8_t* data, uint64_t size) {
    const auto t0 = SteadyClock::now();
    uint64_t done = 0;
    while (done < size) {
      const ssize_t n = ::pwrite(fd, data + done, size_t(size - done), off_t(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::error(ErrorCode::Io, path + ": write failed: " + std::strerror(errno));
      done += uint64_t(n);
    }
    offset += size;
    add_io_time(t0);
    std::lock_guard<std::mutex> lock(mu);
    stats.file_bytes = offset;
    return Status::ok();
  }

  // Streams the file to disk instead of piling it up in the page cache:
  // every 8 MB, starts writeback of the new bytes, then waits for the window
  // before them (started 8 MB ago, usually done) and drops it from the cache.
  // The disk works while chunks are encoded, finalize()'s fsync finds little
  // left, and a long recording does not evict the training data's pages.
  void start_writeback() {
#ifdef __linux__
    if (offset - writeback_from < kWritebackBytes) return;
    const auto t0 = SteadyClock::now();
    ::sync_file_range(fd, off_t(writeback_from), off_t(offset - writeback_from), SYNC_FILE_RANGE_WRITE);
    if (dropped_to < writeback_from) {
      const off_t len = off_t(writeback_from - dropped_to);
      ::sync_file_range(fd, off_t(dropped_to), len,
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
      ::posix_fadvise(fd, off_t(dropped_to), len, POSIX_FADV_DONTNEED);
      dropped_to = writeback_from;
    }
    writeback_from = offset;
    add_io_time(t0);
#endif
  }

  // ------------------------------------------------------ encoder thread --
  void encode_loop() {
    for (;;) {
      Pending p;
      Bytes buffer;
      {
        std::unique_lock<std::mutex> lock(mu);
        raw_cv.wait(lock, [&] { return !raw_queue.empty() || stop; });
        if (raw_queue.empty()) break;
        p = std::move(raw_queue.front());
        raw_queue.pop_front();
        if (!spare.empty()) {
          buffer = std::move(spare.back());
          spare.pop_back();
        }
      }
      Encoded e;
      bool ok = false;
      if (!failed()) {
        Status s = encoder.encode(p.info, p.ordinal, p.raw.data(), p.raw.size(), &buffer, &e.entry, p.level);
        if (s) {
          e.bytes = std::move(buffer);
          ok = true;
        } else {
          set_error(Status::error(s.code, path + ": chunk " + std::to_string(p.ordinal) + " (" +
                                              chunk_kind_name(p.info.kind) + "): " + s.message));
        }
      }
      {
        std::unique_lock<std::mutex> lock(mu);
        stats.backlog_bytes -= p.raw.size();
        stats.compress_seconds = encoder.busy_seconds();
        if (p.raw.capacity() >= kMinSpareRaw && spare_raw.size() < kSpareRawBuffers) {
          p.raw.clear();
          spare_raw.push_back(std::move(p.raw));
        }
        if (ok) {
          encoded_cv.wait(lock, [&] { return encoded_queue.size() < kMaxEncodedQueue || !first_error.is_ok(); });
          encoded_queue.push_back(std::move(e));
        }
      }
      encoded_cv.notify_all();
      space_cv.notify_all();
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      encoder_done = true;
    }
    encoded_cv.notify_all();
  }

  // ----------------------------------------------------------- I/O thread --
  void io_loop() {
    for (;;) {
      Encoded e;
      {
        std::unique_lock<std::mutex> lock(mu);
        encoded_cv.wait(lock, [&] { return !encoded_queue.empty() || encoder_done; });
        if (encoded_queue.empty()) break;
        e = std::move(encoded_queue.front());
        encoded_queue.pop_front();
      }
      encoded_cv.notify_all();
      if (!failed()) {
        e.entry.offset = offset;
        Status s = write_all(e.bytes.data(), e.bytes.size());
        if (s) {
          index.push_back(e.entry);
          start_writeback();
          std::lock_guard<std::mutex> lock(mu);
          stats.chunks += 1;
          stats.raw_bytes += e.entry.raw_size;
        } else {
          set_error(s);
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      if (spare.size() < 2) spare.push_back(std::move(e.bytes));
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

  // Footer (kind Index: u64 count + entries), trailer, fsync.
  Status write_footer_and_trailer() {
    const uint64_t count = index.size();
    Bytes body(8 + count * kIndexEntrySize);
    le::put64(body.data(), count);
    for (uint64_t i = 0; i < count; ++i) encode_index_entry(index[i], body.data() + 8 + i * kIndexEntrySize);
    ChunkInfo info;
    info.kind = uint16_t(ChunkKind::Index);
    ChunkEntry footer;
    Bytes bytes;
    ChunkEncoder footer_encoder(options.zstd_level);
    Status s = footer_encoder.encode(info, uint32_t(count), body.data(), body.size(), &bytes, &footer);
    if (!s) return Status::error(s.code, path + ": footer: " + s.message);
    Trailer trailer;
    trailer.footer_offset = offset;
    trailer.footer_size = bytes.size();
    trailer.chunk_count = uint32_t(count);
    uint8_t tail[kTrailerSize];
    encode_trailer(trailer, tail);
    bytes.insert(bytes.end(), tail, tail + kTrailerSize);
    s = write_all(bytes.data(), bytes.size());
    if (!s) return s;
    const auto t0 = SteadyClock::now();
    if (::fsync(fd) != 0) return Status::error(ErrorCode::Io, path + ": fsync failed: " + std::strerror(errno));
    add_io_time(t0);
    return Status::ok();
  }

  // Asks both threads to drain and leave; joins them.
  void stop_threads(bool with_footer) {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
      write_footer = write_footer || with_footer;
    }
    raw_cv.notify_all();
    space_cv.notify_all();
    if (encoder_thread.joinable()) encoder_thread.join();
    if (io_thread.joinable()) io_thread.join();
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
  Status s = impl->write_all(bytes, kFileHeaderSize);
  if (!s) {
    ::close(fd);
    return s;
  }
  Impl* raw = impl.get();
  impl->encoder_thread = std::thread([raw] { raw->encode_loop(); });
  impl->io_thread = std::thread([raw] { raw->io_loop(); });
  return std::unique_ptr<RunWriter>(new RunWriter(std::move(impl)));
}

RunWriter::RunWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RunWriter::~RunWriter() { impl_->stop_threads(false); }

uint32_t RunWriter::append(const ChunkInfo& info, Bytes raw) {
  return append(info, std::move(raw), impl_->options.zstd_level);
}

uint32_t RunWriter::append(const ChunkInfo& info, Bytes raw, int zstd_level) {
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
           !m.first_error.is_ok() || m.stop;
  });
  if (m.stop) {  // finalize() began while this append waited for room
    if (m.first_error.is_ok())
      m.first_error = Status::error(ErrorCode::Io, m.path + ": chunk appended during finalize()");
    return UINT32_MAX;
  }
  const uint32_t ordinal = m.next_ordinal++;
  m.stats.backlog_bytes += size;
  if (m.stats.backlog_bytes > m.stats.peak_backlog_bytes) m.stats.peak_backlog_bytes = m.stats.backlog_bytes;
  m.raw_queue.push_back(Impl::Pending{info, ordinal, std::move(raw), zstd_level});
  lock.unlock();
  m.raw_cv.notify_one();
  return ordinal;
}

Bytes RunWriter::reuse_buffer(uint64_t min_capacity) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto& spare = impl_->spare_raw;
  for (size_t i = 0; i < spare.size(); ++i) {
    if (spare[i].capacity() < min_capacity) continue;
    Bytes b = std::move(spare[i]);
    spare.erase(spare.begin() + long(i));
    return b;
  }
  return Bytes();
}

Status RunWriter::finalize() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->finalized) return impl_->final_status;
  }
  impl_->stop_threads(true);
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
