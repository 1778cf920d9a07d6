// run_model.h: one run as the viewer sees it: the reader (index only), its
// metadata, and lazy access to events through the chunk cache.
//
// States: Empty -> Opening -> Open | Failed. open() returns at once; the
// source's answer moves the model on (in the same call for synchronous
// sources, on a later frame otherwise). A model opened again, or destroyed,
// ignores answers still in flight for the previous source.
//
// Nothing here blocks: event(id) and the metadata are available once their
// chunk is resident; until then they are absent and a read is in flight.
//
// Opening asks at once, in the open's own callback, for what the first view
// shows: the run metadata, the source file names, the followed samples and
// the Events chunks of the first rows. Their reads travel together instead
// of waiting for the frames that would ask for them one after another.
//
// The model is the viewer's data layer (no ImGui): it owns the reader, the
// chunk cache and the run's lazily built indexes (events and their tree,
// source files, samples, tensors, parameters, losses and their per-sample
// analysis, optimizer steps, insights, Replay's step stops, layer
// magnitudes) and the one cache of decoded tensor values. Pages and panels
// ask it; they never walk chunks themselves. Opening another run resets every index.
//
// Live runs (a run still being written: opened without its footer):
// recheck_growth() asks the reader to grow (RunReader::grow: the source's
// size now, then only the new chunk headers or the footer) without waiting:
// a model that decodes in the background runs it on its GrowWorker
// (grow_worker.h; a synchronous source: a local file, or a remote run whose
// every read is an agent round trip) and take_growth() picks the answer up
// on a later frame; otherwise the source itself answers later (the
// browser's) or at once (a bounded tvis-view run, which decodes in the
// frame too). Nothing changes until the whole answer is in (file_size()
// included); when the run grew, the model adopts the grown reader in place: the new
// chunks join the index (ordinals unchanged), the chunk cache keeps what it
// holds, the lazy indexes rebuild from it, and info() moves to the newest
// RunMeta chunk once it is read (the previous metadata stays shown until
// then). A run whose file shrank or was replaced stops being live and
// live_problem() says why; what was read stays shown.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_reader.h"
#include "tvis/viewer_model/call_ref.h"
#include "tvis/viewer_model/records.h"
#include "tvis/viewer_model/chunk_body.h"
#include "tvis/viewer_model/chunk_cache.h"
#include "tvis/viewer_model/decoded_values.h"
#include "tvis/viewer_model/event_tree.h"
#include "tvis/viewer_model/grow_worker.h"
#include "tvis/viewer_model/insights.h"
#include "tvis/viewer_model/layer_magnitudes.h"
#include "tvis/viewer_model/loss_analysis.h"
#include "tvis/viewer_model/losses.h"
#include "tvis/viewer_model/module_diagram.h"
#include "tvis/viewer_model/optimizer_steps.h"
#include "tvis/viewer_model/param_shards.h"
#include "tvis/viewer_model/run_diagnosis.h"
#include "tvis/viewer_model/parameters.h"
#include "tvis/viewer_model/profile_capture.h"
#include "tvis/viewer_model/record_index.h"
#include "tvis/viewer_model/samples.h"
#include "tvis/viewer_model/source_files.h"
#include "tvis/viewer_model/step_stops.h"
#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

enum class RunStatus { Empty, Opening, Open, Failed };

/// Where an event id stands. NotRecorded is final: no Events chunk covering
/// the id holds it once they are all read (a call still open when a killed
/// run ended is never written, yet its written children name it as parent),
/// or no chunk of the run covers the id at all.
enum class EventState { Present, Loading, Unreadable, NotRecorded };

/// What a run is opened for: shown (View), or listed in a run list, where only
/// its metadata is read (Metadata).
enum class OpenPurpose { View, Metadata };

/// What the top bar shows, taken from the run's last RunMeta chunk.
struct RunInfo {
  bool loaded = false;  // false until the RunMeta chunk arrived (or none exists)
  std::string script;
  std::vector<std::string> argv;
  std::string date;  // "2026-12-02 12:40:31 UTC", "" when unknown
  std::string device;
  std::string hostname;
  std::string torch_version;
  std::string exception;
  std::vector<std::string> notices;  // messages, in order
  int steps_recorded = -1;           // -1 when the metadata does not say
  struct PhaseTime {
    int step = -1;
    schema::Phase phase = schema::Phase::None;
    int64_t ns = 0;
    int64_t own_ns = -1;  // tvis's own part of ns; -1: not recorded (user_time.h)
  };
  std::vector<PhaseTime> phase_timings;  // wall time per (step, phase), as recorded
  std::string optimizer_class;           // "" without torch.optim
  /// RunMeta.options as recorded (key, value): --max-elems, and for a rank
  /// of a distributed launch rank, world_size, local_rank, launcher, backend.
  std::vector<std::pair<std::string, std::string>> options;
  /// RunMeta.param_shards: the parameters this rank held a part of (param_shards.h).
  std::vector<ParamShardInfo> param_shards;
};

/// An Events chunk's place in the dense event-id space.
struct EventSpan {
  uint64_t first = 0;
  uint64_t last = 0;  // inclusive
  int32_t step_first = -1;
  int32_t step_last = -1;
  uint32_t ordinal = 0;
};

class RunModel {
 public:
  explicit RunModel(uint64_t cache_budget_bytes);
  ~RunModel();
  RunModel(const RunModel&) = delete;  // the indexes hold a reference to their model
  RunModel& operator=(const RunModel&) = delete;

  void open(std::shared_ptr<format::ByteSource> source, OpenPurpose purpose = OpenPurpose::View);
  /// Runs opened later decode their chunks on a worker thread where there
  /// are threads (ChunkCache::use_decode_worker).
  void set_decode_in_background(bool on) { decode_in_background_ = on; }
  /// Enters Failed with `message` (a source the shell could not create).
  void fail(std::string message);
  void clear();

  RunStatus status() const { return status_; }
  /// The reason for Failed (the reader's one-line message), else "".
  const std::string& error() const { return error_; }
  /// The source's short name ("run.tvis", a URL).
  const std::string& source_name() const { return source_name_; }

  // --- valid in Open ------------------------------------------------------
  /// Loads the metadata on first use; cheap afterwards. `loaded` turns true
  /// once the RunMeta chunk arrived, failed, or the run has none.
  const RunInfo& info();
  /// Open and the metadata settled: what the run shows is final.
  bool ready() const { return status_ == RunStatus::Open && info_.loaded; }
  bool complete() const;
  const std::string& recovery_notice() const;

  // --- live runs (see the header comment) -----------------------------------
  /// Open, not complete, and no recheck failed: the file may still grow.
  bool live() const { return status_ == RunStatus::Open && !complete() && live_problem_.empty(); }
  /// Starts one recheck unless one is in flight or the run is not live.
  void recheck_growth();
  /// Takes in a recheck the GrowWorker answered (every frame, before anything
  /// reads the model: viewer/src/live_run.h); nothing while none is in flight.
  void take_growth();
  bool recheck_in_flight() const { return growth_pending_ != nullptr; }
  /// Why the run stopped being live (it shrank, was replaced, is gone), else "".
  const std::string& live_problem() const { return live_problem_; }
  /// How many times the run grew since it opened.
  int growths() const { return growths_; }
  uint64_t event_count() const { return event_count_; }
  int step_count() const;
  /// The run file's size as the model's index saw it (a live run's grows
  /// only when a recheck's answer is adopted).
  uint64_t file_size() const;
  uint64_t bytes_read() const;
  ChunkCache& cache() { return *cache_; }
  const ChunkCache* cache_if_open() const { return cache_.get(); }
  const std::vector<EventSpan>& event_spans() const { return spans_; }
  /// The index entry of chunk `ordinal` (must be < the reader's chunk count).
  const format::ChunkInfo& chunk_info(uint32_t ordinal) const { return reader_->chunks()[ordinal].info; }
  /// Ordinals of every chunk of `kind`, in file order.
  const std::vector<uint32_t>& chunks_of_kind(format::ChunkKind kind) const;

  /// The event with id `id`, or nullptr while its chunk loads (or failed:
  /// see event_failure()).
  const schema::Event* event(uint64_t id);
  /// The call with id `id` as a plain ref (call_ref.h); empty while its
  /// chunk loads (or failed). What pages and panels use.
  CallRef call(uint64_t id);
  /// The enclosing call's id of call `id` (-1 at the top); nullopt while its
  /// chunk loads (or failed). For scans over many ids: holds no chunk.
  std::optional<int64_t> parent_of(uint64_t id) {
    const schema::Event* e = event(id);
    return e ? std::optional<int64_t>(e->parent()) : std::nullopt;
  }
  /// The failure of the chunk that holds `id`, or nullptr.
  const format::Status* event_failure(uint64_t id) const;
  /// Present, Loading (a chunk that may hold it is in flight: asks for it),
  /// Unreadable (the chunks that may hold it failed) or NotRecorded.
  EventState event_state(uint64_t id);
  /// What a NotRecorded id is, in words: on a recovered run, a call that was
  /// still open when the run ended.
  const char* not_recorded_label() const;
  /// The first event of `step` (and `phase`, unless Phase::None) among loaded
  /// chunks; requests the chunks that may hold it. nullopt while unknown.
  std::optional<uint64_t> first_event_of(int step, schema::Phase phase, bool* exhausted);

  /// The events of one Events chunk (Loading while it is read).
  ChunkBody<schema::EventBatch> span_events(const EventSpan& span) {
    return read_body<schema::EventBatch>(*cache_, span.ordinal);
  }
  /// Walks the calls of one Events chunk in record order from index *next,
  /// calling f(call) and advancing *next while f returns true. `state` is
  /// Loading (f not called) while the chunk is read, Failed when it cannot
  /// be; `finished` once *next is past its last call (a failed chunk is
  /// finished: it holds none that can be read).
  struct SpanWalk {
    ChunkRead state = ChunkRead::Loading;
    bool finished = false;
  };
  template <typename F>
  SpanWalk walk_span_calls(const EventSpan& span, uint32_t* next, F&& f);
  /// Calls f(event) for every loaded event of `step`, across the Events
  /// chunks whose step range covers it. False while some of them still load
  /// (callers draw what they have and ask again next frame).
  template <typename F>
  bool for_step_events(int step, F&& f);
  /// The same, handing f a CallRef (what pages and panels use).
  template <typename F>
  bool for_step_calls(int step, F&& f);

  // --- the run's indexes (lazy: each builds from chunks as they arrive) ----
  EventTree& tree() { return tree_; }
  SourceFiles& source_files() { return files_; }
  Samples& samples() { return samples_; }
  TensorIndex& tensors() { return tensors_; }
  Parameters& parameters() { return parameters_; }
  Losses& losses() { return losses_; }
  LossAnalysis& loss_analysis() { return loss_analysis_; }
  OptimizerSteps& optimizer_steps() { return optimizer_steps_; }
  Insights& insights() { return insights_; }
  /// Each step's Replay stops (step_stops.h): Replay, Loss, the diagram.
  StepStops& step_stops() { return step_stops_; }
  /// Per layer and step: mean |output|, ||dL/d(output)||, ||dw||/||w||.
  LayerMagnitudes& layer_magnitudes() { return magnitudes_; }
  /// Each step's forward module calls as a tree (Replay's diagram).
  ModuleDiagrams& diagrams() { return diagrams_; }
  /// A profile capture's graph (the Graph page).
  ProfileCaptureIndex& profile_capture() { return profile_capture_; }
  /// Tensor values by id, decoded once for every page (decoded_values.h).
  DecodedValues& values() { return values_; }
  /// diagnose's findings (run_diagnosis.h): the Diagnosis page, the top bar's badge.
  RunDiagnosis& diagnosis() { return diagnosis_; }
  /// Every record of the chunk kind holding `Body`, by step (record_index.h):
  /// the index of a record kind that has no index of its own.
  template <typename Body>
  RecordIndex<Body>& records();

 private:
  // f(read) for every loaded Events chunk whose step range covers `step`;
  // false while some of them still load (for_step_events, for_step_calls).
  template <typename F>
  bool for_step_chunks(int step, F&& f);
  struct Pending;
  void on_open(format::Result<std::shared_ptr<format::RunReader>> result);
  void on_grown(format::Result<std::shared_ptr<format::RunReader>> result);
  void reset_indexes();
  void index_events();
  void prefetch_first_view();

  OpenPurpose purpose_ = OpenPurpose::View;
  const EventSpan* span_of(uint64_t id) const;
  // Calls f(span) for every span covering `id`, innermost first, until f
  // returns false (defined in run_model.cpp, its only user).
  template <typename F>
  void each_span_covering(uint64_t id, F&& f) const;

  uint64_t budget_;
  bool decode_in_background_ = false;
  RunStatus status_ = RunStatus::Empty;
  std::string error_;
  std::string source_name_;
  std::shared_ptr<Pending> pending_;  // identity of the open in flight
  std::shared_ptr<format::ByteSource> source_;
  std::shared_ptr<format::RunReader> reader_;
  std::shared_ptr<ChunkCache> cache_;
  std::vector<EventSpan> spans_;  // sorted by first; may overlap (see span_of)
  uint64_t max_span_len_ = 0;     // largest last - first among spans_
  uint64_t event_count_ = 0;
  int max_step_ = -1;
  int max_optimizer_step_ = -1;
  int meta_ordinal_ = -1;
  int info_ordinal_ = -1;  // the RunMeta chunk info_ was read from (-1: none yet)
  RunInfo info_;
  std::shared_ptr<Pending> growth_pending_;  // identity of the recheck in flight
  std::unique_ptr<GrowWorker> grow_worker_;  // the rechecks of a model that decodes in the background
  std::string live_problem_;
  int growths_ = 0;
  std::vector<std::vector<uint32_t>> by_kind_;  // kind -> ordinals
  EventTree tree_{*this};
  SourceFiles files_{*this};
  Samples samples_{*this};
  TensorIndex tensors_;
  Parameters parameters_{*this};
  Losses losses_{*this};
  LossAnalysis loss_analysis_{*this};
  OptimizerSteps optimizer_steps_{*this};
  Insights insights_{*this};
  StepStops step_stops_{*this};
  LayerMagnitudes magnitudes_{*this};
  ModuleDiagrams diagrams_{step_stops_};
  ProfileCaptureIndex profile_capture_{*this};
  DecodedValues values_;  // budget: a quarter of the chunk cache's (run_model.cpp)
  RunDiagnosis diagnosis_{*this};
  std::map<schema::Body, std::unique_ptr<RecordIndexBase>> record_indexes_;  // records<Body>()'s
};

template <typename Body>
RecordIndex<Body>& RunModel::records() {
  const schema::Body key = schema::BodyTraits<Body>::enum_value;  // a copy: the member is declared, not defined
  auto& slot = record_indexes_[key];
  if (!slot) slot = std::make_unique<RecordIndex<Body>>(*this);
  return static_cast<RecordIndex<Body>&>(*slot);
}

template <typename Body>
bool RecordIndex<Body>::ready() {
  if (!model_.cache_if_open()) return false;
  if (scan_.done()) return true;
  return scan_.run<Body>(model_.cache(), model_.chunks_of_kind(kind()), false, [&](ChunkBody<Body>& read) {
    by_step_[read.chunk->entry().info.step_first].push_back(std::move(read));
  });
}

template <typename F>
bool RunModel::for_step_chunks(int step, F&& f) {
  bool complete = true;
  for (const EventSpan& span : spans_) {
    if (span.step_first >= 0 && (step < span.step_first || step > span.step_last)) continue;
    auto read = span_events(span);
    if (read.state == ChunkRead::Loading) complete = false;
    if (read.body && read.body->events()) f(read);
  }
  return complete;
}

template <typename F>
bool RunModel::for_step_events(int step, F&& f) {
  return for_step_chunks(step, [&](const ChunkBody<schema::EventBatch>& read) {
    for (const auto* e : *read.body->events())
      if (e->step() == step) f(e);
  });
}

template <typename F>
bool RunModel::for_step_calls(int step, F&& f) {
  return for_step_chunks(step, [&](const ChunkBody<schema::EventBatch>& read) {
    CallRef call(read.chunk, nullptr);  // one reference count per chunk, not per call
    for (const auto* e : *read.body->events())
      if (e->step() == step) {
        call.point_at(e);
        f(static_cast<const CallRef&>(call));
      }
  });
}

template <typename F>
RunModel::SpanWalk RunModel::walk_span_calls(const EventSpan& span, uint32_t* next, F&& f) {
  SpanWalk walk;
  auto read = span_events(span);
  walk.state = read.state;
  if (read.state == ChunkRead::Loading) return walk;
  const uint32_t n = read.body && read.body->events() ? read.body->events()->size() : 0;
  CallRef call(read.chunk, nullptr);
  for (; *next < n; ++*next) {
    call.point_at(read.body->events()->Get(*next));
    if (!f(static_cast<const CallRef&>(call))) break;
  }
  walk.finished = *next >= n;
  return walk;
}

/// Lower-case phase name ("forward"); "" for Phase::None.
const char* phase_label(schema::Phase phase);
/// Short event-kind label ("module", "function", "phase begin", ...).
const char* event_kind_label(schema::EventKind kind);

}  // namespace tvis::viewer
