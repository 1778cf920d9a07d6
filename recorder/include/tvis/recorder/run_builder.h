// run_builder.h: turns what the hooks observe into the chunks of one run file.
// Torch-free: the LibTorch side (tensor_capture) hands it finished records and
// host bytes; the pybind11 module drives it from the training thread.
//
// Contract:
//   - Ids are dense from 0: events in begin order, tensors in add order.
//   - An event stays in memory until the first flush() after it ended, so
//     backward can still attach dL/d(output) to a forward event of the same
//     step. Each flush() writes every event that has ended, whether or not
//     an enclosing call is still open, so a killed script loses only the
//     events of the step in progress and the calls still open. An Events
//     chunk holds its events sorted by id; its id range may hold gaps (calls
//     still open then) that a later chunk fills, so ranges overlap. Events
//     that end after a later id was written (enclosing calls: `<module>`,
//     `main`, `train`) go in a chunk of their own, keeping the others' ranges
//     tight. Readers wanting call order sort by id (format/run_summary.cpp).
//   - Tensor values are copied once, into the TensorData chunk being built
//     (data_chunk_buffer.h), one buffer per kind of data, so each chunk
//     holds values that compress alike:
//       float32 mostly zeros (`sparse`, >= half exactly 0; not weights): unfiltered, at
//         zstd_level (zstd finds the zero runs fastest unshuffled);
//       float32 gradients and updates (Grad, Update, GradOutput, GradInput;
//         1.7-3.4x): Shuffle4, zstd_level;
//       other float32 (weights, activations; 1.1-1.3x): Shuffle4, at the
//         faster dense_zstd_level;
//       everything else: unfiltered, zstd_level.
//       float32 weights (role Weight, mostly zero or not, so that every
//         boundary holds the same weights): a buffer of their
//         own, cut at every end_weights() (a step boundary: the weights
//         before the first step, then after each step), Shuffle4. A chunk
//         of a boundary whose raw size equals the same-numbered chunk of the
//         previous boundary's is written as an XOR delta against it
//         (container.h: ChunkEncoding::XorDelta; the reader undoes it):
//         weights that change little between steps share their sign,
//         exponent and high mantissa bits, so the delta is mostly zero
//         bytes. Every weight_keyframe_every-th boundary is stored plain, so
//         a reader follows at most that many bases. Lossless whatever the
//         layout (a mismatch costs size, never bits). Costs one copy of the
//         last boundary's weight bytes, kept here, and one pass over them.
//     Each buffer becomes a chunk when it exceeds the chunk size or at
//     flush(); the TensorRecords pointing into it are completed with the
//     chunk ordinal then and written (TensorBatch) at the next flush(). A
//     record of at least the chunk size (a language model's logits) starts
//     a chunk and is not counted: the records after it fill that chunk up
//     to the chunk size, so the chunk stays in memory while the step's
//     later records may share a leading part of it (below); a chunk holds
//     at most one such record, of at most kHeldOversizeMax bytes (a larger
//     one is cut at the next record: memory before sharing). Weights are
//     cut by the size alone.
//   - One stored copy per value within a step: a tensor of at least
//     kShareMinBytes whose kept bytes equal, bit for bit, those of a tensor
//     added earlier in the same step (the logits recorded as a module's output
//     and again as the loss input; an embedding table and its weight) points
//     at the same chunk range (data_chunk, data_offset, data_size) instead of
//     storing them again. Equality: same size and the same XXH3 128-bit hash
//     (a collision is below 2^-100 for any run); the earlier copy's offset
//     must suit the new record's alignment. Readers need nothing new: a
//     record's range is read with its own shape and dtype, as before. A
//     weight (the Weights buffer) never points at another's copy, though
//     later records may point at its: every boundary's weight chunks then
//     have the same layout, so each can be the XOR delta of the one before
//     (two BatchNorm layers' equal ones at init no longer make step 0's
//     weights after the step a whole copy).
//     A record's kept bytes may also be the leading part of an earlier copy
//     of this step that came from the same host address (the loss input
//     [B*T, V], kept to max_elems, read from the logits [B, T, V] the model's
//     head returned and kept whole): when that copy's buffer is not cut yet
//     and its first `size` bytes equal the new ones (memcmp: proof, not a
//     hash), the record points at them (same chunk and offset, its own
//     size). The address only finds the candidate; the comparison decides.
//   - Chunk order in the file: RunMeta (started), then per step: SourceFiles
//     (the step's new files, write_sources()), then flush(): TensorData,
//     TensorBatch, the records added (add_record: OptimizerStep, Loss,
//     SampleBatch, InsightBatch, ...) in the order added, and EventBatch
//     last: a file cut short (a killed script) that holds a step's events
//     holds the whole step. finalize() adds the remaining SourceFiles and the
//     final RunMeta. The last RunMeta wins (chunk_kind.h).
//   - Not thread-safe: callers serialize (the module holds the GIL).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tvis/schema/recording_generated.h>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/error.h"
#include "tvis/format/run_writer.h"
#include "tvis/recorder/data_chunk_buffer.h"

namespace tvis::recorder {

struct BuilderOptions {
  std::string path;                        // run.tvis to create
  int zstd_level = 1;
  int dense_zstd_level = -7;               // float32 weights and activations (see above)
  uint64_t data_chunk_bytes = 8ull << 20;  // TensorData buffer size before it is cut
  uint64_t max_backlog_bytes = 512ull << 20;
  int writer_nice = 19;                    // format::WriterOptions::background_nice
  bool xor_delta_weights = true;           // weights as XOR deltas between boundaries (above)
  uint32_t weight_keyframe_every = 8;      // every Nth boundary's weights plain
};

class RunBuilder {
 public:
  /// Creates the file (ErrorCode::Io names the path and the OS error).
  static format::Result<std::unique_ptr<RunBuilder>> create(const BuilderOptions& options);
  ~RunBuilder();

  /// Starts an event; `ev->id` is assigned. Returns the id.
  uint64_t begin_event(std::unique_ptr<schema::EventT> ev);
  /// Marks the event ended at `t_end_ns` (no-op for unknown/flushed ids).
  void end_event(uint64_t id, int64_t t_end_ns);
  /// The event if it is still in memory, else nullptr.
  schema::EventT* find_event(uint64_t id);
  /// Sets `phase` on the events of the subtrees rooted at `roots` that are
  /// still in memory (the current step's: events are written by flush()).
  /// Returns how many changed.
  size_t relabel_subtrees(const std::vector<uint64_t>& roots, schema::Phase phase);
  /// Drops the sample batches not yet written whose batch_event is one of `events`.
  void drop_sample_batches(const std::vector<uint64_t>& events);
  uint64_t events_begun() const { return next_event_id_; }

  /// Adds a tensor record (id, data_* fields are filled here) with `size`
  /// bytes of kept values at `data` (may be null when nothing is kept);
  /// `f32`: float32 values, `sparse`: at least half of them exactly 0.
  uint64_t add_tensor(std::unique_ptr<schema::TensorRecordT> rec, const void* data, uint64_t size, bool f32,
                      bool sparse = false);
  uint64_t tensors_added() const { return next_tensor_id_; }
  /// {size, low half of the XXH3-128} of the kept bytes the last add_tensor()
  /// was given; {0, 0} when it hashed none (no values, or fewer than kShareMinBytes).
  std::pair<uint64_t, uint64_t> last_value_hash() const { return last_hash_; }

  /// Ends a step boundary's weights: the weight buffer becomes a chunk now,
  /// and the chunks since the last call are the base of the next boundary's
  /// (a call after no weight changes nothing).
  void end_weights();
  /// Weight chunks written as XOR deltas, and their raw bytes (bench).
  uint64_t delta_chunks() const { return delta_chunks_; }

  /// Queues one record (a Body member: LossRecord, OptimizerStepRecord,
  /// SampleBatch, InsightBatch, ...) for the next flush(), which writes it as
  /// one chunk of the member's kind (format::kind_of_body) with these index
  /// ranges (UINT64_MAX: no event). A NONE body, or a member without a chunk
  /// kind, is std::invalid_argument.
  void add_record(schema::BodyUnion body, int32_t step_first, int32_t step_last, uint64_t event_first = UINT64_MAX,
                  uint64_t event_last = UINT64_MAX);

  /// Writes the RunMeta chunk (the first says "being written").
  void write_meta(const schema::RunMetaT& meta);
  /// Writes all tensor data and summaries, the queued records (add_record)
  /// in the order they were added, and then every ended event.
  void flush();
  /// Writes one SourceFiles chunk holding `sources` (files not written
  /// before: readers take the union of every SourceFiles chunk by file id).
  void write_sources(schema::SourceFilesT sources);
  /// flush(), then ends still-open events at `t_end_ns`, writes `sources`,
  /// the final `meta`, footer and trailer. Returns the writer's first error.
  format::Status finalize(const schema::SourceFilesT& sources, const schema::RunMetaT& meta, int64_t t_end_ns);

  format::WriterStats writer_stats() const;
  uint64_t bytes_kept() const { return bytes_kept_; }
  /// Tensors whose values point at an earlier record's stored copy, and the bytes that saved.
  uint64_t shared_records() const { return shared_records_; }
  uint64_t shared_bytes() const { return shared_bytes_; }
  static constexpr uint64_t kShareMinBytes = 4096;
  /// The largest record whose chunk stays open after it (above: cut at the next record, as any full chunk).
  static constexpr uint64_t kHeldOversizeMax = 64ull << 20;

 private:
  struct DataBuffer {
    DataBuffer(uint64_t capacity, DataChunkBuffer::Recycle recycle) : chunk(capacity, std::move(recycle)) {}
    DataChunkBuffer chunk;
    std::vector<schema::TensorRecordT*> records;  // records pointing into it
    uint64_t oversize_bytes = 0;  // the value bytes up to and with its record of at least the chunk size (not counted)
    int32_t step_first = INT32_MAX, step_last = -1;
  };
  explicit RunBuilder(const BuilderOptions& options, std::unique_ptr<format::RunWriter> writer);
  template <typename T>
  uint32_t append_table(format::ChunkKind kind, T&& body, int32_t step_first, int32_t step_last,
                        uint64_t event_first = UINT64_MAX, uint64_t event_last = UINT64_MAX);
  struct QueuedRecord;
  uint32_t append_record(QueuedRecord r);
  enum class Data { F32Sparse, F32Grad, F32Dense, Raw, Weights };
  static Data data_class(const schema::TensorRecordT& rec, bool f32, bool sparse);
  DataBuffer& buffer(Data d);
  void cut_buffer(Data d);
  void write_events(std::vector<std::unique_ptr<schema::EventT>> events);

  BuilderOptions options_;
  std::unique_ptr<format::RunWriter> writer_;
  uint64_t next_event_id_ = 0;
  uint64_t next_tensor_id_ = 0;
  uint64_t bytes_kept_ = 0;
  std::map<uint64_t, std::unique_ptr<schema::EventT>> events_;  // in memory, by id
  std::map<uint64_t, bool> ended_;                                // id -> ended
  uint64_t written_end_ = 0;  // one past the largest event id written
  std::vector<std::unique_ptr<schema::TensorRecordT>> tensors_;  // not yet written
  struct QueuedRecord {
    schema::BodyUnion body;
    int32_t step_first, step_last;
    uint64_t event_first, event_last;
  };
  std::vector<QueuedRecord> records_;  // add_record's, in order, until flush()
  DataBuffer f32_sparse_, f32_grad_, f32_dense_, raw_, weights_;
  // The weight chunks of the boundary being built and of the last one ended:
  // ordinal and raw bytes (the base of the next boundary's deltas).
  struct WeightChunk {
    uint32_t ordinal;
    format::Bytes bytes;
  };
  std::vector<WeightChunk> weights_now_, weights_before_;
  uint64_t boundaries_ = 0, delta_chunks_ = 0;
  void cut_weights();
  // This step's stored copies by (size, XXH3-128): where their bytes are. `ordinal`
  // UINT32_MAX while their buffer is not cut yet. Cleared at flush() (one step).
  struct StoredCopy {
    Data data;
    uint64_t offset;
    uint32_t ordinal;
    int32_t step;
  };
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, StoredCopy> copies_;
  // This step's stored copies by the host address their bytes came from, while
  // their buffer is not cut (cut_buffer() drops that buffer's; flush() all).
  struct SourceCopy {
    Data data;
    uint64_t offset, size;
    int32_t step;
  };
  std::map<const void*, SourceCopy> sources_;
  bool share_leading_part(schema::TensorRecordT& rec, const void* data, uint64_t size, uint64_t align);
  void drop_sources(Data d);
  uint64_t shared_records_ = 0, shared_bytes_ = 0;
  std::pair<uint64_t, uint64_t> last_hash_{0, 0};
};

}  // namespace tvis::recorder
