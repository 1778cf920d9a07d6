// chunk_cache.h: decoded chunks of one open run, fetched on demand and kept
// within a memory budget (least recently used evicted first).
//
// Contract:
//   - get() never waits: it returns the decoded chunk when resident, else
//     nullptr, and starts one asynchronous read for it unless one is already
//     in flight or the chunk failed before (failures are remembered: a corrupt
//     chunk is not re-read every frame).
//   - A chunk over its copy budget (format/copy_budget.h: tables sharing one
//     vector or string, as only a crafted file has) is a failure: no index
//     gets it, so what the viewer copies from a chunk is bounded by its size.
//   - The budget counts decoded bytes. A chunk larger than the whole budget is
//     still kept until the next insertion (so it can be drawn once).
//   - Pinned chunks (run metadata) are never evicted.
//   - Callbacks that arrive after the cache is destroyed are ignored.
//   - Frame budget: after begin_frame(B), a frame starts reads of chunks whose
//     decoded (raw) sizes add up to at most B, plus one read past B: get()
//     of a chunk that does not fit returns nullptr without a read (the page
//     draws its placeholder and asks again next frame). The one pass goes to
//     the chunk deferred longest (if asked for again in the last frame), so
//     no chunk starves and one larger than B still loads; when none waits,
//     to the first read that does not fit. A synchronous source decodes
//     inside get(), so this bounds the decoding one frame does; an
//     asynchronous one decodes on arrival, and the budget bounds the reads a
//     frame starts. Without begin_frame() calls there is no limit.
//   - Decode worker (native, use_decode_worker()): reads and decodes go to a
//     background thread instead of the synchronous source; what it finished
//     lands at the next begin_frame() (or pump()), on the frame's thread, as
//     the browser's asynchronous reads do. Pages see the same "not resident
//     yet" answer in both shells; the frame never decodes.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tvis/format/run_reader.h"
#include "tvis/viewer_model/decode_worker.h"

namespace tvis::viewer {

class ChunkCache : public std::enable_shared_from_this<ChunkCache> {
 public:
  using ChunkPtr = std::shared_ptr<const format::DecodedChunk>;

  ChunkCache(std::shared_ptr<format::RunReader> reader, uint64_t budget_bytes);

  /// The chunk if resident (marks it most recently used); otherwise nullptr and
  /// a read is started (see contract).
  ChunkPtr get(uint32_t ordinal);
  /// Like get() but the chunk is never evicted once loaded.
  ChunkPtr get_pinned(uint32_t ordinal);

  /// A live run grew: `grown` holds every chunk of the reader before it,
  /// ordinals unchanged, and more; what is resident stays resident.
  void adopt_reader(std::shared_ptr<format::RunReader> grown);

  /// Routes every later read to a background decode thread (see contract);
  /// false (and nothing changes) where threads are not available.
  bool use_decode_worker();
  bool decodes_in_background() const { return worker_ != nullptr; }
  /// Takes in the chunks the decode worker finished (begin_frame() does this).
  void pump();
  /// Blocks until the decode worker has finished every read started, then
  /// pump()s: a scripted frame sees what a synchronous source would show.
  void wait_for_decodes();

  /// Starts a frame with a budget of `raw_bytes` of new chunk reads (see contract).
  void begin_frame(uint64_t raw_bytes);
  /// Starts reads now, outside any frame's budget: for the few chunks the
  /// first view of a run needs, asked for together as soon as the run opens.
  void prefetch(uint32_t ordinal, bool pin);

  bool loading(uint32_t ordinal) const { return in_flight_.count(ordinal) != 0; }
  /// Raw bytes of the chunks whose reads this frame started.
  uint64_t frame_started_bytes() const { return frame_started_; }
  /// Raw bytes of every chunk decoded so far (resident or since evicted).
  uint64_t decoded_bytes() const { return decoded_bytes_; }
  /// Chunks decoded so far (resident or since evicted).
  uint64_t decoded_chunks() const { return decoded_chunks_; }
  /// The failure of `ordinal`'s last read, or nullptr.
  const format::Status* failure(uint32_t ordinal) const;
  /// Every failure met so far, in the order met (reader messages).
  const std::vector<std::string>& failure_messages() const { return failure_messages_; }

  uint64_t resident_bytes() const { return resident_bytes_; }
  uint64_t budget_bytes() const { return budget_bytes_; }
  size_t resident_chunks() const { return entries_.size(); }
  size_t in_flight() const { return in_flight_.size(); }
  uint64_t evictions() const { return evictions_; }

 private:
  struct Entry {
    ChunkPtr chunk;
    uint64_t bytes = 0;
    bool pinned = false;
    std::list<uint32_t>::iterator lru;  // position in lru_ (front = newest)
  };

  ChunkPtr lookup(uint32_t ordinal, bool pin);
  bool within_frame_budget(uint32_t ordinal) const;
  void note_deferred(uint32_t ordinal);
  void request(uint32_t ordinal, bool pin);
  void on_loaded(uint32_t ordinal, bool pin, format::Result<ChunkPtr> result);
  void evict_over_budget(uint32_t keep);

  std::shared_ptr<format::RunReader> reader_;
  uint64_t budget_bytes_;
  uint64_t resident_bytes_ = 0;
  uint64_t evictions_ = 0;
  uint64_t decoded_bytes_ = 0;
  uint64_t decoded_chunks_ = 0;
  bool frame_limited_ = false;  // begin_frame() was called
  uint64_t frame_budget_ = 0;
  uint64_t frame_started_ = 0;  // raw bytes whose reads this frame started
  bool frame_bypass_used_ = false;  // this frame's one read past the budget was taken
  uint64_t frame_ = 0;          // begin_frame() calls
  struct Deferred {
    uint64_t since = 0;       // frame first deferred
    uint64_t last_asked = 0;  // frame last asked for
  };
  std::unordered_map<uint32_t, Deferred> deferred_;  // asked for, not started (budget)
  int64_t priority_ = -1;  // this frame's oldest deferred chunk, read past the budget
  std::unordered_map<uint32_t, Entry> entries_;
  std::list<uint32_t> lru_;
  std::unordered_map<uint32_t, bool> in_flight_;  // ordinal -> pin requested
  std::unordered_map<uint32_t, format::Status> failures_;
  std::vector<std::string> failure_messages_;
  std::unique_ptr<DecodeWorker> worker_;  // last member: joined before the rest goes
};

}  // namespace tvis::viewer
