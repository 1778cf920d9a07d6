#include "chunk_cache.h"

namespace tvis::viewer {

ChunkCache::ChunkCache(std::shared_ptr<format::RunReader> reader, uint64_t budget_bytes)
    : reader_(std::move(reader)), budget_bytes_(budget_bytes) {}

ChunkCache::ChunkPtr ChunkCache::get(uint32_t ordinal) { return lookup(ordinal, false); }

void ChunkCache::begin_frame(uint64_t raw_bytes) {
  frame_limited_ = true;
  frame_budget_ = raw_bytes;
  frame_started_ = 0;
  frame_reads_ = 0;
}

void ChunkCache::prefetch(uint32_t ordinal, bool pin) {
  if (entries_.count(ordinal) || in_flight_.count(ordinal) || failures_.count(ordinal) ||
      ordinal >= reader_->chunks().size())
    return;
  request(ordinal, pin);
}

bool ChunkCache::within_frame_budget(uint32_t ordinal) const {
  if (!frame_limited_ || frame_reads_ == 0) return true;
  return frame_started_ + reader_->chunks()[ordinal].raw_size <= frame_budget_;
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
  if (!in_flight_.count(ordinal) && !failures_.count(ordinal) && ordinal < reader_->chunks().size() &&
      within_frame_budget(ordinal)) {
    ++frame_reads_;
    frame_started_ += reader_->chunks()[ordinal].raw_size;
    request(ordinal, pin);
    // A synchronous source may have answered already.
    auto done = entries_.find(ordinal);
    if (done != entries_.end()) return done->second.chunk;
  }
  return nullptr;
}

void ChunkCache::request(uint32_t ordinal, bool pin) {
  in_flight_[ordinal] = pin;
  std::weak_ptr<ChunkCache> weak = weak_from_this();
  reader_->read_chunk(ordinal, [weak, ordinal, pin](format::Result<ChunkPtr> result) {
    if (auto self = weak.lock()) self->on_loaded(ordinal, pin, std::move(result));
  });
}

void ChunkCache::on_loaded(uint32_t ordinal, bool pin, format::Result<ChunkPtr> result) {
  in_flight_.erase(ordinal);
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
