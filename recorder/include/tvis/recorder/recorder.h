// recorder.h: one run being recorded, the state behind `_tvis_native.Recorder`.
//
// The Python side decides what to record; this class turns its calls into
// events, tensor records and kept values and hands them to a RunBuilder.
// It knows no Python: the pybind11 module (py_recorder.h) converts Python
// objects into these calls, so C++ tests drive it directly.
//
// Contract:
//   - Events nest: begin() opens one under the innermost open event; end(id)
//     ends `id` and every event opened after it. Times are ns since creation.
//   - Every event and tensor record carries the current step and phase.
//   - In the Evaluation phase tensors keep statistics only, unless
//     RecorderOptions::config.eval_values.
//   - Activations (Input, Output, GradOutput, GradInput) whose dim 0 is the
//     batch keep the rows the viewer draws: the followed samples' rows, the
//     leading rows up to the last followed one (set_followed_rows(); the
//     first `samples` rows until it is called). The batch itself, the
//     top-level call's inputs (tensor(..., whole_rows = true)), keeps up to
//     max_elems like any other tensor: the Loss page draws any of its rows.
//   - Values are kept within RecorderOptions::config.max_run_bytes by the
//     ByteBudget's priorities; a refused tensor keeps statistics, a
//     thumbnail and, batch-sized, the followed samples' rows.
//   - tensor() never changes the tensor (tensor_capture.h). Within one step
//     an Input/Output tensor already recorded and unchanged since (same
//     TensorImpl alive, same version) is not recorded again: its id is
//     returned; GradOutput tensors likewise among gradients.
//   - Source files: file_id() numbers paths densely from 0 in first-use
//     order; flush() writes the files first seen since the last flush, with
//     their text when they are project code (project_paths.h).
//   - Phase timings (ns per step and phase) go into every RunMeta written,
//     and so do the device reads per step (RunMeta.step_device_reads,
//     device_reads.h): device tensors' statistics are queued in one
//     DeviceBatch per step and read back by flush() (and finalize()), so a
//     step's records get their numbers before they are written.
//   - Own time (own_time.h): the work tvis does is bracketed by own_enter()
//     / own_exit() (the Python hooks) and by the calls here that capture,
//     copy or write (tensor(), on_grad(), params_before/after(), flush(),
//     the add_*() records, finalize()). Each event's own_ns is the own time
//     between its t_begin_ns and t_end_ns (at most that wall time); each
//     PhaseTiming's own_ns likewise. The user's time is wall - own.
//   - Not thread-safe: the module calls it with the GIL held.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tvis/schema/recording_generated.h>

#include "tvis/recorder/byte_budget.h"
#include "tvis/recorder/device_batch.h"
#include "tvis/recorder/own_time.h"
#include "tvis/recorder/project_paths.h"
#include "tvis/recorder/run_builder.h"
#include "tvis/recorder/snapshot_spill.h"

namespace tvis::recorder {

struct CaptureOptions;  // tensor_capture.h

struct RecorderOptions {
  std::string path;  // the run file to create
  /// The run's configuration as `tvis run` filled it (schema/recording.fbs:
  /// RunConfig, the one home of its defaults): max_elems (tensors up to this
  /// many elements keep every value), samples (followed samples: leading rows
  /// always kept of batch-sized tensors), max_run_bytes (the byte budget of
  /// kept values, byte_budget.h; 0: none) shared over `steps`, eval_values
  /// (Evaluation-phase tensors keep values too, else statistics only),
  /// project_dir. Every RunMeta written stores it as it is.
  schema::RunConfigT config;
  std::vector<std::string> exclude_dirs;
  int zstd_level = 1;
  int64_t data_chunk_bytes = 8 << 20;
  std::optional<int> dense_zstd_level;  // unset: the builder's default
  bool update_values = false;      // Δw records keep their values too (else Δw = weight after − weight before)
  /// Parameters of at least this many bytes in all (a params_before() call's
  /// list) keep their float32 CPU weights of 2^19 elements or more in a file
  /// beside the run between params_before() and params_after(), not in a
  /// second in-memory copy (snapshot_spill.h); 0: always; UINT64_MAX: never.
  uint64_t spill_snapshot_bytes = 256ull << 20;
};

/// Writer and recorder counters (Recorder.stats() in Python).
struct RecorderStats {
  uint64_t chunks = 0, raw_bytes = 0, file_bytes = 0, backlog_bytes = 0, peak_backlog_bytes = 0;
  double compress_seconds = 0;
  uint64_t bytes_kept = 0, events = 0, tensors = 0;
  uint64_t late_grads = 0;  // gradients arriving for an event already written
  uint64_t budget_refused = 0, budget_refused_bytes = 0;  // tensors the byte budget reduced, their values' bytes
  uint64_t peak_spilled_bytes = 0;  // the most weight-before bytes one optimizer step kept in the spill file
  std::string spill_error;          // why the spill file was given up ("" when it never failed)
  uint64_t spill_lost_updates = 0;  // Δw records left with their count only by a failed read
  uint64_t writer_spilled_chunks = 0, writer_spilled_bytes = 0;  // run_writer.h: chunks past the memory bound
  int encoder_threads = 0;                                        // the writer's encoder pool
  int statistics_threads = 0;  // torch's intra-op threads the parallel statistics reach (tensor_capture.h)
  uint64_t shared_records = 0, shared_bytes = 0;  // run_builder.h: records pointing at an earlier stored copy
};

class Recorder {
 public:
  /// Creates the run file; throws std::runtime_error when it cannot.
  explicit Recorder(const RecorderOptions& options);

  int64_t now() const;

  // ---- own time (own_time.h) -------------------------------------------------
  /// Brackets tvis's own work on the calling thread (nests).
  void own_enter() { own_.enter(); }
  void own_exit() { own_.exit(); }
  /// ns of own time so far.
  int64_t own_total() const { return own_.total(); }
  OwnClock& own_clock() { return own_; }

  // ---- files and events ----------------------------------------------------
  uint32_t file_id(const std::string& path);
  /// Opens an event; `frame` (any non-null key) lets end_frame() find it.
  uint64_t begin(int kind, const std::string& name, const std::string& class_name, uint32_t call_file,
                 uint32_t call_line, uint32_t def_file, uint32_t def_line, const void* frame = nullptr);
  /// Ends `id` and every event opened after it that is still open; no-op if not open.
  void end(uint64_t id);
  /// Ends the innermost open event begun with `frame`, if any.
  void end_frame(const void* frame);
  uint64_t instant(int kind, const std::string& name);
  void add_detail(uint64_t id, std::vector<std::unique_ptr<schema::KeyValueT>> kvs);

  // ---- step and phase ------------------------------------------------------
  void set_step(int step);
  int step() const { return step_; }
  /// Phase 0 is "none"; entering or leaving another adds PhaseBegin/PhaseEnd events.
  void set_phase(int phase);
  int phase() const { return phase_; }
  /// Tensors whose dim 0 equals `rows` are batch-sized (followed-sample rows kept).
  void set_batch_rows(int64_t rows) { batch_rows_ = rows; }
  /// Batch-sized activations keep their leading `rows` rows (one past the
  /// last followed sample's batch position); at least 1.
  void set_followed_rows(int64_t rows) { followed_rows_ = rows > 0 ? rows : 1; }
  /// Bytes of one copy of the model's parameters: the room the byte budget
  /// keeps for each step's weights and gradients (byte_budget.h).
  void set_parameter_bytes(uint64_t bytes) { budget_.set_parameter_bytes(bytes); }

  // ---- tensors -------------------------------------------------------------
  /// Records `t` (role a schema::TensorRole) on `event`; statistics only in
  /// the Evaluation phase (unless evaluation values are kept) and for LocalGrad.
  /// `whole_rows`: a batch-sized activation keeps up to max_elems like any
  /// tensor (the batch as the top-level call received it), not only the
  /// followed rows.
  int64_t tensor(const at::Tensor& t, int role, int64_t event, const std::string& name, int slot,
                 bool whole_rows = false);
  /// Lists `ids` (from tensor()) as the inputs (role 0) or outputs (role 1) of `event`.
  void list_on_event(uint64_t event, int role, const std::vector<int64_t>& ids);
  /// dL/d(output of `event`): recorded as GradOutput, summed into its
  /// grad_norm, leading-row norms kept for batch-sized gradients. Counted as
  /// late (and dropped) when the event was already written.
  void on_grad(uint64_t event, const at::Tensor& grad);
  /// Records p_after - p_before, computed in the parameter's dtype.
  int64_t update(int64_t event, const std::string& name, const at::Tensor& after, const at::Tensor& before);

  // ---- optimizer step --------------------------------------------------------
  /// Before optimizer.step(): each parameter's weight (role Weight) and .grad
  /// (role Grad; -1 when undefined) on `event`, plus an exact copy of the
  /// weight for params_after(). Returns [(weight id, grad id)].
  ///
  /// Weights are stored once per step boundary: a parameter unchanged since
  /// the params_after() that recorded its weight after the previous step
  /// (same TensorImpl alive, same version and, on the CPU, the same bytes by
  /// xxh64) gets that record's id instead of a new record.
  /// `grads`, when given (one per parameter, undefined for none), are the
  /// gradients recorded instead of each p.grad(): a sharded parameter's local
  /// tensor (DTensor, FSDP1 flat views) has no .grad of its own.
  std::vector<std::pair<int64_t, int64_t>> params_before(int64_t event, const std::vector<std::string>& names,
                                                          const std::vector<at::Tensor>& params,
                                                          const std::vector<at::Tensor>* grads = nullptr);
  /// After optimizer.step(), for the same parameter list (else throws
  /// std::invalid_argument): each update Δw = p_after − p_before, computed in
  /// the parameter's dtype (role Update; statistics only unless
  /// RecorderOptions::update_values), and the weight after the step (role
  /// Weight, recorded at step() + 1: the next step's weight before).
  /// Returns [(update id, weight-after id)]. A large model's weights before
  /// wait in a file (RecorderOptions::spill_snapshot_bytes); their Δw is
  /// the same subtraction, summarised in pieces of 2^18 elements merged in
  /// order (what the in-memory path does with more than one torch thread).
  std::vector<std::pair<int64_t, int64_t>> params_after(int64_t event, const std::vector<at::Tensor>& params);
  /// Instead of params_after() when no update ran (GradScaler skipped the
  /// step): forgets the snapshot params_before() kept; records nothing.
  void params_unchanged();

  // ---- records -------------------------------------------------------------
  /// One record, any Body member but those written here (RunMeta, SourceFiles,
  /// EventBatch, TensorBatch, TensorData): written at the next flush() as one
  /// chunk of its member's kind (format's kind_of_body), packed on an encoder
  /// thread, its index entry holding the given step and event ranges
  /// (UINT64_MAX: none).
  void add_record(schema::BodyUnion body, int32_t step_first, int32_t step_last, uint64_t event_first = UINT64_MAX,
                  uint64_t event_last = UINT64_MAX);
  void write_meta(schema::RunMetaT meta);
  /// Writes what the step produced, then the sources first seen since the
  /// last flush (a killed run keeps both).
  void flush();
  /// The step's top-level forwards that no backward reached (the Session
  /// decides at the step's end, before flush()): their calls become the
  /// Evaluation phase, and their time moves from Forward to Evaluation in
  /// the phase timings. Their tensors keep what they kept (values as a
  /// forward's). Returns how many events changed.
  size_t relabel_as_evaluation(const std::vector<uint64_t>& roots);
  /// Drops the step's sample batches recorded at these events (not yet written).
  void drop_sample_batches(const std::vector<uint64_t>& events) { builder_->drop_sample_batches(events); }
  /// Ends the run: phase none, open events end now, the remaining sources
  /// and the final RunMeta are written, the file is closed. A second call
  /// only returns the stats. Throws std::runtime_error on a write error.
  RecorderStats finalize(schema::RunMetaT meta);
  RecorderStats stats() const;

  /// While paused, on_grad() records nothing (the module's hooks check it too).
  void set_paused(bool p) { paused_ = p; }
  bool paused() const { return paused_; }
  const ProjectPaths& paths() const { return paths_; }
  const schema::RunConfigT& config() const { return config_; }  // RecorderOptions::config

 private:
  struct Open {
    uint64_t id;
    const void* frame;
    int64_t own0;  // own_.total() when it began
  };
  struct PhaseTime {  // one (step, phase)'s wall time and tvis's own part of it
    int64_t ns = 0, own = 0;
  };
  struct Pending {  // a parameter between params_before() and params_after()
    std::string name;
    c10::TensorImpl* impl;
    at::Tensor before;        // exact copy of the weight before the step (undefined when spilled)
    int64_t spilled = -1;     // else: its offset in spill_
    int64_t numel = 0;        // elements when params_before() saw it
  };
  struct DedupEntry {
    c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl> impl;
    uint32_t version;
    uint64_t id;
    double l2;     // of the recorded values (grad norms of later users)
    const schema::StatsT* stats;  // the record's statistics (filled by batch_.resolve() when pending)
    bool values;   // the record kept values (a statistics-only one is recorded again where values are kept)
    bool whole;    // not cut to the followed rows (a whole_rows request records again otherwise)
  };
  using DedupMap = std::unordered_map<c10::TensorImpl*, DedupEntry>;
  struct WeightAfter {  // a parameter's weight as recorded by params_after()
    c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl> impl;
    uint32_t version;
    uint64_t hash;  // bytes_hash() (CPU tensors; 0 elsewhere)
    int64_t id;
  };

  DedupMap* dedup_for(const at::Tensor& t, int role);
  /// Captures `t` into a new record of `role` on `event` at `step`.
  int64_t add_record(const at::Tensor& t, int role, int64_t event, const std::string& name, int slot, int step,
                     bool stats_only, bool whole_rows = true);
  /// The weight-after record id still describing `p` exactly, else -1.
  int64_t unchanged_weight(const at::Tensor& p) const;
  /// The low half of the XXH3-128 of a CPU tensor's bytes in contiguous
  /// order (the run builder's hash of kept values: RunBuilder::last_value_hash); 0 elsewhere.
  static uint64_t bytes_hash(const at::Tensor& p);
  /// Narrows `o` to what the byte budget grants `t` (byte_budget.h).
  void apply_budget(const at::Tensor& t, int role, CaptureOptions* o);
  at::Tensor snapshot(size_t i, const at::Tensor& p);
  /// True when `p`'s weight-before goes to spill_ (spill_snapshot_bytes).
  bool spills(const at::Tensor& p, uint64_t all_bytes);
  /// Records Δw of a spilled parameter, summarised a piece at a time.
  int64_t spilled_update(const Pending& b, const at::Tensor& after, int64_t event);
  /// A statistics-only Update record of `b` (shaped like `like`, else like b.before) with statistics `vs`.
  int64_t update_summary(const Pending& b, const ValueStats& vs, int64_t event, const at::Tensor* like = nullptr);
  /// The spill file failed (`why`): every later weight stays in memory.
  void give_up_spilling(const std::string& why);
  /// After params_after(): the file's pages go back; a given-up file closes.
  void end_spill_step();
  void close_phase_timing();
  /// Sets the event's own_ns: own time since `own0`, at most its wall time up to `t`.
  void set_own(uint64_t id, int64_t t, int64_t own0, int64_t own_now);
  void add_phase_timings(schema::RunMetaT* meta) const;
  schema::SourceFilesT new_sources();

  std::unique_ptr<RunBuilder> builder_;
  ByteBudget budget_;
  ProjectPaths paths_;
  schema::RunConfigT config_;  // stored in every RunMeta (add_phase_timings)
  int64_t max_elems_;
  bool evaluation_values_;
  bool update_values_;
  int samples_;
  int64_t batch_rows_ = -1;
  int64_t followed_rows_;  // rows of batch-sized activations kept (set_followed_rows)
  int step_ = 0;
  int phase_ = 0;
  int64_t t0_ = 0, phase_t0_ = 0;
  OwnClock own_;
  int64_t phase_own0_ = 0;  // own_.total() when the current phase's timing began
  int64_t own_t0_ = 0;      // own_.total() at creation (the clock's thread state outlives a recorder)
  bool paused_ = false;
  bool finalized_ = false;
  double last_l2_ = 0;
  const schema::StatsT* last_stats_ = nullptr;  // the last record's (tensor()), valid until flush()
  DeviceBatch batch_;  // this step's device-side statistics (device_batch.h), resolved by flush()
  uint64_t reads_mark_ = 0;               // device_reads() when the current step began
  std::vector<uint32_t> step_reads_;      // device reads of the steps before the current one
  uint64_t late_grads_ = 0;
  std::vector<Open> stack_;
  std::unordered_map<std::string, uint32_t> files_;
  std::vector<std::string> file_paths_;
  uint32_t sources_written_ = 0;  // files [0, sources_written_) are in SourceFiles chunks
  DedupMap dedup_;                // inputs / outputs of this step
  DedupMap dedup_grads_;          // dL/d(output) of this step
  std::vector<Pending> pending_;  // the optimizer step in progress
  std::vector<at::Tensor> spare_;  // CPU snapshot buffers, by parameter slot
  std::string run_dir_;            // where spill_ is created
  uint64_t spill_threshold_;
  std::unique_ptr<SnapshotSpill> spill_;  // weights before the step of a large model
  uint64_t peak_spilled_ = 0;
  std::string spill_error_;
  uint64_t spill_lost_updates_ = 0;
  std::unordered_map<c10::TensorImpl*, WeightAfter> weights_after_;  // by parameter
  std::map<std::pair<int, int>, PhaseTime> timings_;
};

}  // namespace tvis::recorder
