// decode_worker.h: one background thread that reads and decodes chunks
// (pread, checksum, zstd, unshuffle, FlatBuffer verification) for the
// chunk cache, so a frame never decodes an ~8 MB TensorData chunk itself.
//
// Contract:
//   - submit() never waits; the chunk is read with RunReader::read_chunk_sync
//     on the worker thread, in submission order.
//   - Results are handed back only through take_done(), on the caller's
//     (the frame's) thread: the cache's bookkeeping stays single-threaded,
//     exactly as with the browser's asynchronous source.
//   - While a worker exists nothing else may read chunks through the same
//     RunReader (the cache routes every read to it). The source must be safe
//     to read from one other thread (the file source: pread).
//   - wait_idle() blocks until every submitted chunk is done (tests, scripted
//     frames); the destructor finishes the chunk being decoded, drops the
//     rest and joins.
//   - Native only: supported() is false in the browser build (no threads
//     there; its source is asynchronous anyway).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "tvis/format/run_reader.h"

namespace tvis::viewer {

class DecodeWorker {
 public:
  using ChunkPtr = std::shared_ptr<const format::DecodedChunk>;
  using Done = std::pair<uint32_t, format::Result<ChunkPtr>>;

  static bool supported();

  explicit DecodeWorker(std::shared_ptr<format::RunReader> reader);
  ~DecodeWorker();
  DecodeWorker(const DecodeWorker&) = delete;
  DecodeWorker& operator=(const DecodeWorker&) = delete;

  void submit(uint32_t ordinal);
  /// A live run grew (RunModel::recheck_growth): later chunks are read
  /// through `reader`, which holds every chunk the old one did.
  void set_reader(std::shared_ptr<format::RunReader> reader);
  /// The chunks finished since the last call, in the order finished.
  std::vector<Done> take_done();
  void wait_idle();

 private:
  void loop();

  std::shared_ptr<format::RunReader> reader_;
  std::mutex mutex_;
  std::condition_variable wake_;  // work queued or stopping
  std::condition_variable idle_;  // queue empty and nothing being decoded
  std::deque<uint32_t> queue_;
  std::vector<Done> done_;
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace tvis::viewer
