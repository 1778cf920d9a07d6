#include "tvis/viewer_model/grow_worker.h"

namespace tvis::viewer {

#ifdef __EMSCRIPTEN__
bool GrowWorker::supported() { return false; }
#else
bool GrowWorker::supported() { return true; }
#endif

GrowWorker::GrowWorker() : shared_(std::make_shared<Shared>()) {
#ifndef __EMSCRIPTEN__
  thread_ = std::thread([shared = shared_] { loop(shared); });
#endif
}

GrowWorker::~GrowWorker() {
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->stop = true;
    shared_->queued.reset();
  }
  shared_->cancel = true;
  shared_->wake.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool GrowWorker::submit(std::shared_ptr<format::RunReader> reader) {
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (shared_->outstanding || !reader) return false;
    shared_->outstanding = true;
    shared_->answer.reset();
    shared_->queued = std::move(reader);
  }
  shared_->wake.notify_one();
  return true;
}

std::optional<GrowWorker::Grown> GrowWorker::take_done() {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  if (!shared_->answer) return std::nullopt;
  std::optional<Grown> out = std::move(shared_->answer);
  shared_->answer.reset();
  shared_->outstanding = false;
  return out;
}

void GrowWorker::wait_answered() {
  std::unique_lock<std::mutex> lock(shared_->mutex);
  shared_->answered.wait(lock, [&] { return shared_->stop || !shared_->outstanding || shared_->answer.has_value(); });
}

void GrowWorker::loop(std::shared_ptr<Shared> shared) {
  std::unique_lock<std::mutex> lock(shared->mutex);
  for (;;) {
    shared->wake.wait(lock, [&] { return shared->stop || shared->queued != nullptr; });
    if (shared->stop) return;
    std::shared_ptr<format::RunReader> reader = std::move(shared->queued);
    shared->queued.reset();
    lock.unlock();
    // The recheck's reads, off the frame. The answer is kept under the lock
    // whenever it comes (a synchronous source: before grow() returns).
    std::weak_ptr<Shared> weak = shared;
    reader->grow(
        [weak](Grown grown) {
          auto s = weak.lock();
          if (!s) return;
          {
            std::lock_guard<std::mutex> answer_lock(s->mutex);
            s->answer = std::move(grown);
          }
          s->answered.notify_all();
        },
        [weak] {
          auto s = weak.lock();
          return !s || s->cancel.load();
        });
    reader.reset();
    lock.lock();
  }
}

}  // namespace tvis::viewer
