// The write half (run_writer.h). Background threads form a pipeline:
//   encoder threads (a pool): take queued chunks oldest first, build deferred
//                   ones (pack), read spilled ones back, filter, compress,
//                   checksum (a ChunkEncoder each, one reused ZSTD_CCtx);
//   I/O thread:     appends the encoded chunks in ordinal order with a single
//                   pwrite each at the end of the file, records the index
//                   entry, starts writeback; at finalize writes footer,
//                   trailer, fsync.
// Both run at a lower priority (WriterOptions::background_nice), so on a
// machine whose cores the training keeps busy they wait for idle time
// rather than taking a core from its threads.
// So compression overlaps the disk, and the file on disk is at every moment a
// header followed by whole chunks plus at most one torn chunk at the end,
// which the reader's recovery scan drops.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  // sync_file_range
#endif
#include "tvis/format/run_writer.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
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
constexpr uint32_t kMaxEncodedAhead = 8;        // encoded chunks waiting for the disk (plus one per encoder)
constexpr size_t kSpareRawBuffers = 4;          // encoded raw buffers kept for reuse_buffer()
constexpr uint64_t kMinSpareRaw = 1u << 20;     // ... when at least this large
constexpr uint64_t kNotSpilled = UINT64_MAX;

// Lowers the calling thread's own priority by `increment` (see
// WriterOptions::background_nice). Best effort: a refusal leaves the thread
// as it was, which changes when chunks are compressed, never what is written.
void lower_own_priority(int increment) {
#ifdef __linux__
  if (increment <= 0) return;
  const id_t tid = static_cast<id_t>(::gettid());
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno == 0) (void)::setpriority(PRIO_PROCESS, tid, std::min(now + increment, 19));
#else
  (void)increment;
#endif
}

int pool_size(int asked) {
  if (asked > 0) return std::min(asked, 16);
  const unsigned hw = std::thread::hardware_concurrency();
  return int(std::clamp<unsigned>(hw / 2, 1, 4));
}
}  // namespace

struct RunWriter::Impl {
  struct Pending {
    ChunkInfo info;
    uint32_t ordinal = 0;
    Bytes raw;                    // in memory (held: counted in the backlog)
    std::function<Bytes()> make;  // deferred: built by the encoder
    uint64_t spill_offset = kNotSpilled, spill_size = 0;  // spilled: read back by the encoder
    bool ready = true;            // false while the appender still writes the spill
    uint64_t held = 0;
    int level = 0;
  };
  struct Encoded {
    ChunkEntry entry;  // offset set by the I/O thread
    Bytes bytes;       // header + payload
    bool ok = false;   // false: the encoder failed (error set); the I/O thread skips it
  };

  std::string path;
  WriterOptions options;
  int fd = -1;
  int spill_fd = -1;         // opened at the first spill; -2: could not be
  uint64_t spill_end = 0;    // bytes reserved in the spill file

  mutable std::mutex mu;
  std::condition_variable raw_cv;      // raw queue gained a chunk, a spill became ready, or stop was asked
  std::condition_variable space_cv;    // raw backlog shrank
  std::condition_variable encoded_cv;  // encoded chunks changed, or the encoders finished
  std::deque<std::shared_ptr<Pending>> raw_queue;
  std::map<uint32_t, Encoded> encoded;  // by ordinal, waiting for the I/O thread
  uint32_t next_write = 0;              // the ordinal the I/O thread writes next
  std::vector<Bytes> spare;      // written buffers returned for reuse by the encoders
  std::vector<Bytes> spare_raw;  // encoded raw buffers for reuse_buffer()
  uint32_t next_ordinal = 0;
  bool stop = false;          // drain everything, then leave the threads
  bool write_footer = false;  // ... and finalize the file first
  int encoders_running = 0;
  bool finalized = false;
  Status final_status;
  Status first_error;
  WriterStats stats;
  std::vector<std::thread> encoder_threads;
  std::thread io_thread;

  // I/O thread only.
  std::vector<ChunkEntry> index;
  uint64_t offset = 0;
  uint64_t writeback_from = 0;  // bytes before it have had writeback started
  uint64_t dropped_to = 0;      // bytes before it are on disk and out of the page cache

  Impl(std::string p, WriterOptions o, int f) : path(std::move(p)), options(std::move(o)), fd(f) {}
  ~Impl() {
    if (spill_fd >= 0) ::close(spill_fd);
  }

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

  // ------------------------------------------------------------- spill --
  // The spill file (caller's thread, `mu` held): opened at the first spill
  // and unlinked at once. False when spilling is off or the file failed.
  bool spill_open() {
    if (spill_fd >= 0) return true;
    if (spill_fd == -2 || !options.spill) return false;
    const std::string sp = options.spill_path.empty() ? path + ".spill" : options.spill_path;
    spill_fd = ::open(sp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (spill_fd < 0) {
      spill_fd = -2;
      return false;
    }
    ::unlink(sp.c_str());
    return true;
  }

  static Status pwrite_all(int f, const uint8_t* data, uint64_t size, uint64_t at) {
    uint64_t done = 0;
    while (done < size) {
      const ssize_t n = ::pwrite(f, data + done, size_t(size - done), off_t(at + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::error(ErrorCode::Io, std::string("spill write failed: ") + std::strerror(errno));
      done += uint64_t(n);
    }
    return Status::ok();
  }

  Status read_spilled(const Pending& p, Bytes* out) {
    out->resize(p.spill_size);
    uint64_t done = 0;
    while (done < p.spill_size) {
      const ssize_t n = ::pread(spill_fd, out->data() + done, size_t(p.spill_size - done),
                                off_t(p.spill_offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::error(ErrorCode::Io, path + ".spill: read failed: " + std::strerror(errno));
      done += uint64_t(n);
    }
    return Status::ok();
  }

  // ----------------------------------------------------- encoder threads --
  void encode_loop() {
    lower_own_priority(options.background_nice);
    ChunkEncoder encoder(options.zstd_level);
    for (;;) {
      std::shared_ptr<Pending> p;
      Bytes buffer;
      {
        std::unique_lock<std::mutex> lock(mu);
        raw_cv.wait(lock, [&] { return !raw_queue.empty() || stop; });
        if (raw_queue.empty()) break;
        p = std::move(raw_queue.front());
        raw_queue.pop_front();
        raw_cv.wait(lock, [&] { return p->ready; });
        if (!spare.empty()) {
          buffer = std::move(spare.back());
          spare.pop_back();
        }
      }
      Encoded e;
      const double busy0 = encoder.busy_seconds();
      double pack_s = 0;
      if (!failed()) {
        Status s = Status::ok();
        if (p->make) {
          const auto t0 = SteadyClock::now();
          try {
            p->raw = p->make();
          } catch (const std::exception& ex) {
            s = Status::error(ErrorCode::Io, std::string("building the chunk failed: ") + ex.what());
          }
          p->make = nullptr;
          pack_s = seconds_since(t0);
        } else if (p->spill_offset != kNotSpilled) {
          s = read_spilled(*p, &p->raw);
        }
        if (s) s = encoder.encode(p->info, p->ordinal, p->raw.data(), p->raw.size(), &buffer, &e.entry, p->level);
        if (s) {
          e.bytes = std::move(buffer);
          e.ok = true;
        } else {
          set_error(Status::error(s.code, path + ": chunk " + std::to_string(p->ordinal) + " (" +
                                              chunk_kind_name(p->info.kind) + "): " + s.message));
        }
      }
      p->make = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu);
        stats.backlog_bytes -= p->held;
        stats.compress_seconds += encoder.busy_seconds() - busy0 + pack_s;
        if (p->raw.capacity() >= kMinSpareRaw && spare_raw.size() < kSpareRawBuffers) {
          p->raw.clear();
          spare_raw.push_back(std::move(p->raw));
        }
        // The oldest ordinal in flight always fits, so the window never deadlocks.
        encoded_cv.wait(lock, [&] { return p->ordinal < next_write + kMaxEncodedAhead || !first_error.is_ok(); });
        encoded.emplace(p->ordinal, std::move(e));
      }
      encoded_cv.notify_all();
      space_cv.notify_all();
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      --encoders_running;
    }
    encoded_cv.notify_all();
  }

  // ----------------------------------------------------------- I/O thread --
  void io_loop() {
    lower_own_priority(options.background_nice);
    for (;;) {
      Encoded e;
      {
        std::unique_lock<std::mutex> lock(mu);
        encoded_cv.wait(lock, [&] { return encoded.count(next_write) || encoders_running == 0; });
        auto it = encoded.find(next_write);
        if (it == encoded.end()) break;
        e = std::move(it->second);
        encoded.erase(it);
        ++next_write;
      }
      encoded_cv.notify_all();
      if (e.ok && !failed()) {
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
      if (spare.size() < size_t(2 + encoder_threads.size()) && e.bytes.capacity()) spare.push_back(std::move(e.bytes));
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

  // Asks every thread to drain and leave; joins them.
  void stop_threads(bool with_footer) {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
      write_footer = write_footer || with_footer;
    }
    raw_cv.notify_all();
    space_cv.notify_all();
    for (auto& t : encoder_threads)
      if (t.joinable()) t.join();
    if (io_thread.joinable()) io_thread.join();
  }

  // Queues `p` (bytes in p->raw, or p->make set), spilling or waiting for
  // room as run_writer.h says. Returns the ordinal or UINT32_MAX.
  uint32_t enqueue(std::shared_ptr<Pending> p) {
    const uint64_t size = p->raw.size();
    std::unique_lock<std::mutex> lock(mu);
    if (stop) {
      if (first_error.is_ok()) first_error = Status::error(ErrorCode::Io, path + ": chunk appended after finalize()");
      return UINT32_MAX;
    }
    const bool fits = options.max_backlog_bytes > 0 &&
                      (stats.backlog_bytes == 0 || stats.backlog_bytes + size <= options.max_backlog_bytes);
    if (!p->make && !fits && spill_open()) {
      p->spill_offset = spill_end;
      p->spill_size = size;
      p->ready = false;
      spill_end += size;
      p->ordinal = next_ordinal++;
      stats.spilled_chunks += 1;
      stats.spilled_bytes += size;
      raw_queue.push_back(p);
      const int f = spill_fd;
      lock.unlock();
      raw_cv.notify_one();
      Status s = pwrite_all(f, p->raw.data(), size, p->spill_offset);
      if (!s) set_error(Status::error(s.code, path + ".spill: " + s.message));
      {
        std::lock_guard<std::mutex> relock(mu);
        p->ready = true;
        if (p->raw.capacity() >= kMinSpareRaw && spare_raw.size() < kSpareRawBuffers) {
          p->raw.clear();
          spare_raw.push_back(std::move(p->raw));
        } else {
          Bytes().swap(p->raw);
        }
      }
      raw_cv.notify_all();
      return p->ordinal;
    }
    // A chunk larger than the whole budget still goes through once the queue is empty.
    space_cv.wait(lock, [&] {
      return stats.backlog_bytes == 0 || stats.backlog_bytes + size <= options.max_backlog_bytes ||
             !first_error.is_ok() || stop;
    });
    if (stop) {  // finalize() began while this append waited for room
      if (first_error.is_ok()) first_error = Status::error(ErrorCode::Io, path + ": chunk appended during finalize()");
      return UINT32_MAX;
    }
    const uint32_t ordinal = p->ordinal = next_ordinal++;
    p->held = size;
    stats.backlog_bytes += size;
    if (stats.backlog_bytes > stats.peak_backlog_bytes) stats.peak_backlog_bytes = stats.backlog_bytes;
    raw_queue.push_back(std::move(p));
    lock.unlock();
    raw_cv.notify_one();
    return ordinal;
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
  const int n = pool_size(options.encoder_threads);
  impl->stats.encoder_threads = n;
  impl->encoders_running = n;
  for (int i = 0; i < n; ++i) impl->encoder_threads.emplace_back([raw] { raw->encode_loop(); });
  impl->io_thread = std::thread([raw] { raw->io_loop(); });
  return std::unique_ptr<RunWriter>(new RunWriter(std::move(impl)));
}

RunWriter::RunWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RunWriter::~RunWriter() { impl_->stop_threads(false); }

uint32_t RunWriter::append(const ChunkInfo& info, Bytes raw) {
  return append(info, std::move(raw), impl_->options.zstd_level);
}

uint32_t RunWriter::append(const ChunkInfo& info, Bytes raw, int zstd_level) {
  auto p = std::make_shared<Impl::Pending>();
  p->info = info;
  p->raw = std::move(raw);
  p->level = zstd_level;
  return impl_->enqueue(std::move(p));
}

uint32_t RunWriter::append_deferred(const ChunkInfo& info, std::function<Bytes()> make, int zstd_level) {
  bool over;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    over = impl_->stats.backlog_bytes >= impl_->options.max_backlog_bytes;
  }
  if (over) return append(info, make(), zstd_level);
  auto p = std::make_shared<Impl::Pending>();
  p->info = info;
  p->make = std::move(make);
  p->level = zstd_level;
  return impl_->enqueue(std::move(p));
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
