#include "tvis/viewer_model/chunk_cache.h"

#include "tvis/format/copy_budget.h"

namespace tvis::viewer {

ChunkCache::ChunkCache(std::shared_ptr<format::RunReader> reader, uint64_t budget_bytes)
    : reader_(std::move(reader)), budget_bytes_(budget_bytes) {}

ChunkCache::ChunkPtr ChunkCache::get(uint32_t ordinal) { return lookup(ordinal, false); }

void ChunkCache::adopt_reader(std::shared_ptr<format::RunReader> grown) {
  reader_ = std::move(grown);
  if (worker_) worker_->set_reader(reader_);
}

bool ChunkCache::use_decode_worker() {
  if (!worker_ && DecodeWorker::supported()) worker_ = std::make_unique<DecodeWorker>(reader_);
  return worker_ != nullptr;
}

void ChunkCache::pump() {
  if (!worker_) return;
  for (auto& [ordinal, result] : worker_->take_done()) {
    auto it = in_flight_.find(ordinal);
    const bool pin = it != in_flight_.end() && it->second;
    on_loaded(ordinal, pin, std::move(result));
  }
}

void ChunkCache::wait_for_decodes() {
  if (!worker_) return;
  worker_->wait_idle();
  pump();
}

void ChunkCache::begin_frame(uint64_t raw_bytes) {
  pump();
  frame_limited_ = true;
  frame_budget_ = raw_bytes;
  frame_started_ = 0;
  frame_bypass_used_ = false;
  ++frame_;
  // Forget chunks no page asked for last frame; the oldest other one goes first.
  priority_ = -1;
  uint64_t oldest = UINT64_MAX;
  for (auto it = deferred_.begin(); it != deferred_.end();) {
    if (it->second.last_asked + 1 < frame_) {
      it = deferred_.erase(it);
      continue;
    }
    if (it->second.since < oldest || (it->second.since == oldest && static_cast<int64_t>(it->first) < priority_)) {
      oldest = it->second.since;
      priority_ = it->first;
    }
    ++it;
  }
}

void ChunkCache::note_deferred(uint32_t ordinal) {
  auto [it, fresh] = deferred_.try_emplace(ordinal);
  if (fresh) it->second.since = frame_;
  it->second.last_asked = frame_;
}

void ChunkCache::prefetch(uint32_t ordinal, bool pin) {
  if (entries_.count(ordinal) || in_flight_.count(ordinal) || failures_.count(ordinal) ||
      ordinal >= reader_->chunks().size())
    return;
  request(ordinal, pin);
}

// A read fits the frame's budget, or takes the frame's one pass past it: the
// oldest deferred chunk's, or (when none waits) the first read that does not fit.
bool ChunkCache::within_frame_budget(uint32_t ordinal) const {
  if (!frame_limited_ || frame_started_ + reader_->chunks()[ordinal].raw_size <= frame_budget_) return true;
  return !frame_bypass_used_ && (priority_ < 0 || static_cast<int64_t>(ordinal) == priority_);
}

ChunkCache::ChunkPtr ChunkCache::get_pinned(uint32_t ordinal) { return lookup(ordinal, true); }

const format::Status* ChunkCache::failure(uint32_t ordinal) const {
  auto it = failures_.find(ordinal);
  return it == failures_.end() ? nullptr : &it->second;
}

ChunkCache::ChunkPtr ChunkCache::lookup(uint32_t ordinal, bool pin) {
  auto it = entries_.find(ordinal);
  if (it != entries_.end()) {
    Entry& e = it->second;
    lru_.splice(lru_.begin(), lru_, e.lru);
    e.pinned = e.pinned || pin;
    return e.chunk;
  }
  if (!in_flight_.count(ordinal) && !failures_.count(ordinal) && ordinal < reader_->chunks().size()) {
    if (!within_frame_budget(ordinal)) {
      note_deferred(ordinal);
      return nullptr;
    }
    if (frame_limited_ && frame_started_ + reader_->chunks()[ordinal].raw_size > frame_budget_)
      frame_bypass_used_ = true;
    frame_started_ += reader_->chunks()[ordinal].raw_size;
    deferred_.erase(ordinal);
    request(ordinal, pin);
    // A synchronous source may have answered already.
    auto done = entries_.find(ordinal);
    if (done != entries_.end()) return done->second.chunk;
  }
  return nullptr;
}

void ChunkCache::request(uint32_t ordinal, bool pin) {
  in_flight_[ordinal] = pin;
  if (worker_) {
    worker_->submit(ordinal);
    return;
  }
  std::weak_ptr<ChunkCache> weak = weak_from_this();
  reader_->read_chunk(ordinal, [weak, ordinal, pin](format::Result<ChunkPtr> result) {
    if (auto self = weak.lock()) self->on_loaded(ordinal, pin, std::move(result));
  });
}

void ChunkCache::on_loaded(uint32_t ordinal, bool pin, format::Result<ChunkPtr> result) {
  in_flight_.erase(ordinal);
  // Every index and page copies out of chunks it gets from here, so this is
  // where the copy budget holds for the whole viewer (format/copy_budget.h):
  // a chunk whose tables share vectors or strings past it fails like a
  // corrupt one, and nothing copies from it.
  if (result.ok() && result.value())
    if (format::Status bounded = format::check_copy_budget(*result.value()); !bounded)
      result = format::Result<ChunkPtr>(std::move(bounded));
  if (!result.ok()) {
    failures_[ordinal] = result.status();
    failure_messages_.push_back(result.status().message);
    return;
  }
  if (entries_.count(ordinal)) return;  // answered twice by a misbehaving source: keep the first
  Entry e;
  e.chunk = std::move(result.value());
  e.bytes = e.chunk ? e.chunk->bytes().size() : 0;
  decoded_bytes_ += e.bytes;
  ++decoded_chunks_;
  e.pinned = pin;
  lru_.push_front(ordinal);
  e.lru = lru_.begin();
  resident_bytes_ += e.bytes;
  entries_.emplace(ordinal, std::move(e));
  evict_over_budget(ordinal);
}

void ChunkCache::evict_over_budget(uint32_t keep) {
  auto it = lru_.end();
  while (resident_bytes_ > budget_bytes_ && it != lru_.begin()) {
    --it;
    uint32_t ordinal = *it;
    Entry& e = entries_.at(ordinal);
    if (ordinal == keep || e.pinned) continue;
    resident_bytes_ -= e.bytes;
    ++evictions_;
    it = lru_.erase(it);
    entries_.erase(ordinal);
  }
}

}  // namespace tvis::viewer
