// run_writer.h: the write half. Native only (threads, files).
//
// A RunWriter owns one output file. append() may be called from any thread;
// it queues the raw chunk and returns at once with the chunk's ordinal. A
// pool of encoder threads (WriterOptions::encoder_threads) builds deferred
// chunks (append_deferred: a FlatBuffer table packed off the caller's
// thread), filters (byte-shuffle), compresses (zstd) and checksums chunks,
// several at once; one I/O thread appends them in ordinal order, so
// compression overlaps the disk and the caller never compresses or writes
// the run file. finalize() drains, writes the footer index and the trailer,
// fsyncs and closes; after it the file is a complete run. A writer destroyed
// without finalize() leaves a file that RunReader recovers by scanning (every
// chunk is written whole, in order).
//
// Memory bound: raw chunks held in memory for the encoders stay within
// `max_backlog_bytes` (one chunk larger than the whole bound goes through
// alone); encoded chunks waiting for the disk are at most kMaxEncodedAhead
// plus one per encoder thread; deferred chunks are held as the caller's
// unpacked records until an encoder packs them (they count nothing).
// When an append would exceed the bound (the encoders fell behind), the raw
// chunk is spilled instead: appended with one pwrite (the page cache, no
// compression) to a spill file in the run's folder (`<path>.spill`, unlinked
// as soon as it is opened, so it never outlives the writer, even a killed
// one) and read back by an encoder in its turn, usually after the recorded
// steps, at finalize(). The run file is the same either way. Without a spill
// file (spill off, or it could not be created) append() blocks for room as a
// bounded queue does.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "tvis/format/byte_source.h"
#include "tvis/format/container.h"
#include "tvis/format/error.h"

namespace tvis::format {

struct WriterOptions {
  int zstd_level = 1;                         // zstd's fast levels by default
  uint64_t max_backlog_bytes = 512ull << 20;  // raw bytes held in memory before spilling (0: every chunk
                                              // spills, tests force that path)
  uint16_t version_minor = kVersionMinor;     // tests write older minors
  int encoder_threads = 0;                    // 0: half the hardware threads, 1 to 4
  bool spill = true;                          // spill past max_backlog_bytes (else block)
  std::string spill_path;                     // "": `<path>.spill`
  // The encoder and I/O threads lower their own scheduling priority by this
  // nice increment (Linux: each thread's own nice value; elsewhere ignored),
  // so they run on the cores the caller's threads leave free instead of
  // preempting them. When the caller keeps every core busy they fall behind
  // and the backlog spills as above, compressed after the busy spell; the
  // run file is the same. 0 keeps the creating thread's priority.
  int background_nice = 19;
};

struct WriterStats {
  uint64_t chunks = 0;             // written to the file
  uint64_t raw_bytes = 0;          // of the chunks written, before compression
  uint64_t file_bytes = 0;         // written so far, headers included
  uint64_t backlog_bytes = 0;      // raw bytes queued now
  uint64_t peak_backlog_bytes = 0;
  double compress_seconds = 0;     // time the encoder threads spent encoding (pack, filter, zstd, xxh64), summed
  uint64_t spilled_chunks = 0;     // chunks that went through the spill file
  uint64_t spilled_bytes = 0;      // their raw bytes
  int encoder_threads = 0;         // the pool's size
  double io_seconds = 0;           // time the writer thread spent in write, writeback and fsync calls
};

class RunWriter {
 public:
  /// Creates (truncates) `path` and writes the file header. Fails with
  /// ErrorCode::Io naming the path and the OS error.
  static Result<std::unique_ptr<RunWriter>> create(const std::string& path, WriterOptions options = {});
  ~RunWriter();  // joins the thread; does not finalize

  /// Queues one chunk. Thread-safe. Returns its ordinal, or UINT32_MAX (and
  /// sets error()) after finalize(). The raw bytes must be a FlatBuffer
  /// `tvis.schema.Chunk` finished with its file identifier
  /// (schema::FinishChunkBuffer) for every kind but Index. A Shuffle filter
  /// works on any size (a tail shorter than one element is kept as is);
  /// make_tensor_data_chunk() lays TensorData out so elements align.
  uint32_t append(const ChunkInfo& info, Bytes raw);
  /// The same, compressed at `zstd_level` instead of the writer's level (a
  /// producer that knows a chunk compresses poorly picks a faster level).
  uint32_t append(const ChunkInfo& info, Bytes raw, int zstd_level);
  /// The same with the raw bytes built by `make` on an encoder thread (a
  /// FlatBuffer table packed there, not on the caller's): `make` owns what it
  /// needs and runs once, on one thread. When the memory bound is already
  /// exceeded it runs at once, on the caller, and the bytes take append()'s path.
  uint32_t append_deferred(const ChunkInfo& info, std::function<Bytes()> make, int zstd_level);

  /// A raw buffer of at least `min_capacity` bytes that an encoded chunk no
  /// longer needs (size 0), or an empty Bytes when none is spare. A producer
  /// filling large chunks reuses them instead of touching fresh pages. The
  /// writer keeps at most a few (kSpareRawBuffers in run_writer.cpp).
  Bytes reuse_buffer(uint64_t min_capacity);

  /// Drains, writes footer and trailer, fsyncs, closes. Idempotent. Returns
  /// the first error met by the writer threads, if any.
  Status finalize();

  /// The first error the background thread met (writes stop after it).
  Status error() const;
  WriterStats stats() const;

 private:
  struct Impl;
  explicit RunWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tvis::format
