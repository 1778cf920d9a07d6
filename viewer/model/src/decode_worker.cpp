#include "tvis/viewer_model/decode_worker.h"

namespace tvis::viewer {

#ifdef __EMSCRIPTEN__
bool DecodeWorker::supported() { return false; }
#else
bool DecodeWorker::supported() { return true; }
#endif

DecodeWorker::DecodeWorker(std::shared_ptr<format::RunReader> reader) : reader_(std::move(reader)) {
#ifndef __EMSCRIPTEN__
  thread_ = std::thread([this] { loop(); });
#endif
}

DecodeWorker::~DecodeWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DecodeWorker::submit(uint32_t ordinal) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(ordinal);
  }
  wake_.notify_one();
}

std::vector<DecodeWorker::Done> DecodeWorker::take_done() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Done> out;
  out.swap(done_);
  return out;
}

void DecodeWorker::set_reader(std::shared_ptr<format::RunReader> reader) {
  std::lock_guard<std::mutex> lock(mutex_);
  reader_ = std::move(reader);
}

void DecodeWorker::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return stop_ || (queue_.empty() && !busy_); });
}

void DecodeWorker::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    const uint32_t ordinal = queue_.front();
    queue_.pop_front();
    busy_ = true;
    const std::shared_ptr<format::RunReader> reader = reader_;
    lock.unlock();
    format::Result<ChunkPtr> result = reader->read_chunk_sync(ordinal);  // the decode, off the frame
    lock.lock();
    done_.emplace_back(ordinal, std::move(result));
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace tvis::viewer
