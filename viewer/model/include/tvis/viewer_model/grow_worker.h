// grow_worker.h: one background thread that runs a live run's recheck
// (RunReader::grow: the source's size now, then the new chunk headers or the
// footer) for the RunModel, so that a frame never waits for it. Over a
// remote run (tvis-view HOST:PATH, remote/store_source.h) every one of those
// reads is an ssh round trip to the agent.
//
// Contract:
//   - submit() never waits; the grow runs on the worker thread, as the
//     decode worker reads chunks (decode_worker.h): a request issued from the
//     frame, its answer picked up by take_done() on a later frame, on the
//     frame's thread. Nothing of the answer is seen before it is complete:
//     the grown reader (new size, new chunk headers or footer) or why the run
//     could not be rechecked.
//   - One grow at a time: submit() while one is outstanding (not yet taken)
//     is refused (returns false).
//   - The source is read from this thread while the decode worker reads
//     chunks through the previous reader: it must be safe to read from two
//     threads (the file source: pread; the store source: the store is).
//   - A source that answers later than grow() returns (none in native
//     builds) still lands: the answer is kept whenever it arrives.
//   - The destructor cancels the grow in progress (RunReader::grow's
//     `cancelled`: it reads no further), waits for the one read under way
//     (one answer of the source) and joins; an answer not yet taken is
//     dropped.
//   - Native only: supported() is false in the browser build, whose sources
//     are asynchronous (RunModel::recheck_growth calls grow() there).
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "tvis/format/run_reader.h"

namespace tvis::viewer {

class GrowWorker {
 public:
  using Grown = format::Result<std::shared_ptr<format::RunReader>>;

  static bool supported();

  GrowWorker();
  ~GrowWorker();
  GrowWorker(const GrowWorker&) = delete;
  GrowWorker& operator=(const GrowWorker&) = delete;

  /// Starts `reader->grow()` on the worker thread; false (nothing started)
  /// while the previous answer has not been taken.
  bool submit(std::shared_ptr<format::RunReader> reader);
  /// The answer of the grow submitted last, once it arrived; nullopt before.
  std::optional<Grown> take_done();
  /// Blocks until the submitted grow has answered (tests).
  void wait_answered();

 private:
  struct Shared {
    std::mutex mutex;
    std::condition_variable wake;      // work queued or stopping
    std::condition_variable answered;  // an answer arrived
    std::shared_ptr<format::RunReader> queued;
    bool outstanding = false;  // submitted, answer not yet taken
    std::optional<Grown> answer;
    bool stop = false;
    std::atomic<bool> cancel{false};  // read by the grow between its reads, without the mutex
  };
  static void loop(std::shared_ptr<Shared> shared);

  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace tvis::viewer
