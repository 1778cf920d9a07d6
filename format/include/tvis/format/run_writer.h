// run_writer.h: the write half. Native only (threads, files).
//
// A RunWriter owns one output file. append() may be called from any thread;
// it queues the raw chunk and returns at once with the chunk's ordinal. A
// background encoder thread filters (byte-shuffle), compresses (zstd) and
// checksums chunks in ordinal order; a background I/O thread appends them in
// that order, so compression overlaps the disk. finalize() drains, writes the
// footer index and the trailer, fsyncs and closes; after it the file is a
// complete run. A writer destroyed without finalize() leaves a file that
// RunReader recovers by scanning (every chunk is written whole, in order).
//
// Backpressure: append() blocks while more than `max_backlog_bytes` of raw
// chunks are queued, so a fast producer cannot exhaust memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tvis/format/byte_source.h"
#include "tvis/format/container.h"
#include "tvis/format/error.h"

namespace tvis::format {

struct WriterOptions {
  int zstd_level = 1;                         // zstd's fast levels by default
  uint64_t max_backlog_bytes = 512ull << 20;  // raw bytes queued before append blocks
  uint16_t version_minor = kVersionMinor;     // tests write older minors
};

struct WriterStats {
  uint64_t chunks = 0;             // written to the file
  uint64_t raw_bytes = 0;          // of the chunks written, before compression
  uint64_t file_bytes = 0;         // written so far, headers included
  uint64_t backlog_bytes = 0;      // raw bytes queued now
  uint64_t peak_backlog_bytes = 0;
  double compress_seconds = 0;     // time the writer thread spent encoding (filter, zstd, xxh64)
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
