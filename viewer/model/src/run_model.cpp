#include "tvis/viewer_model/run_model.h"

#include <algorithm>
#include <ctime>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/fb_string.h"

namespace tvis::viewer {

struct RunModel::Pending {};

namespace {

std::string format_date(int64_t unix_ms) {
  if (unix_ms <= 0) return {};
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

using format::str;

}  // namespace

RunModel::RunModel(uint64_t cache_budget_bytes)
    : budget_(cache_budget_bytes), values_(*this, std::max<uint64_t>(cache_budget_bytes / 4, 16ull << 20)) {}
RunModel::~RunModel() = default;

void RunModel::clear() {
  pending_.reset();
  growth_pending_.reset();
  grow_worker_.reset();  // an answer still to come is dropped (waits for the one read in progress)
  live_problem_.clear();
  growths_ = 0;
  source_.reset();
  reader_.reset();
  cache_.reset();
  reset_indexes();
  // Kept when a live run grows (what they answered stays true), so reset here only.
  step_stops_.reset();
  magnitudes_.reset();
  diagrams_.reset();
  profile_capture_.reset();
  values_.reset();
  info_ = RunInfo{};
  info_ordinal_ = -1;
  error_.clear();
  source_name_.clear();
  status_ = RunStatus::Empty;
}

// The chunk index and every lazy index built from chunks (not the metadata).
void RunModel::reset_indexes() {
  spans_.clear();
  max_span_len_ = 0;
  event_count_ = 0;
  max_step_ = -1;
  max_optimizer_step_ = -1;
  meta_ordinal_ = -1;
  by_kind_.clear();
  tree_.reset();
  files_.reset();
  samples_.reset();
  tensors_.reset();
  losses_.reset();
  loss_analysis_.reset();
  optimizer_steps_.reset();
  insights_.reset();
  diagnosis_.reset();
  for (auto& [body, index] : record_indexes_) index->reset();
}

void RunModel::fail(std::string message) {
  std::string name = source_name_;
  clear();
  source_name_ = std::move(name);
  error_ = std::move(message);
  status_ = RunStatus::Failed;
}

void RunModel::open(std::shared_ptr<format::ByteSource> source, OpenPurpose purpose) {
  clear();
  purpose_ = purpose;
  status_ = RunStatus::Opening;
  source_name_ = source ? source->name() : std::string("(none)");
  if (!source) {
    fail("no run source");
    return;
  }
  source_ = source;
  auto token = std::make_shared<Pending>();
  pending_ = token;
  std::weak_ptr<Pending> weak = token;
  format::RunReader::open(source, [this, weak](format::Result<std::shared_ptr<format::RunReader>> result) {
    if (weak.expired()) return;  // superseded or destroyed: ignore
    on_open(std::move(result));
  });
}

void RunModel::on_open(format::Result<std::shared_ptr<format::RunReader>> result) {
  pending_.reset();
  if (!result.ok()) {
    fail(result.status().message.empty() ? "cannot read run" : result.status().message);
    return;
  }
  reader_ = result.value();
  cache_ = std::make_shared<ChunkCache>(reader_, budget_);
  if (decode_in_background_) cache_->use_decode_worker();
  index_events();
  status_ = RunStatus::Open;
  prefetch_first_view();
}

void RunModel::recheck_growth() {
  if (!live() || growth_pending_) return;
  auto token = std::make_shared<Pending>();
  growth_pending_ = token;
  if (cache_->decodes_in_background() && GrowWorker::supported()) {
    // A synchronous source: its size and new headers are read on the worker
    // (over ssh, a round trip each); take_growth() picks the answer up.
    if (!grow_worker_) grow_worker_ = std::make_unique<GrowWorker>();
    if (!grow_worker_->submit(reader_)) growth_pending_.reset();  // an answer not taken: cannot happen
    return;
  }
  std::weak_ptr<Pending> weak = token;
  reader_->grow([this, weak](format::Result<std::shared_ptr<format::RunReader>> result) {
    if (weak.expired()) return;  // the run was closed or reopened meanwhile
    on_grown(std::move(result));
  });
}

void RunModel::take_growth() {
  if (!grow_worker_ || !growth_pending_) return;
  if (auto answer = grow_worker_->take_done()) on_grown(std::move(*answer));
}

void RunModel::on_grown(format::Result<std::shared_ptr<format::RunReader>> result) {
  growth_pending_.reset();
  if (!result.ok()) {
    live_problem_ = result.status().message.empty() ? "the run file cannot be rechecked" : result.status().message;
    return;
  }
  if (result.value() == reader_) return;  // nothing new
  const bool more = result.value()->chunks().size() != reader_->chunks().size() || result.value()->complete();
  reader_ = result.value();
  cache_->adopt_reader(reader_);
  if (!more) return;
  reset_indexes();
  index_events();
  ++growths_;
}

namespace {
constexpr uint64_t kFirstViewRows = 64;  // ids whose Events chunks the first view asks for
}  // namespace

void RunModel::prefetch_first_view() {
  if (meta_ordinal_ >= 0) cache_->prefetch(static_cast<uint32_t>(meta_ordinal_), true);
  if (purpose_ == OpenPurpose::Metadata) return;
  for (uint32_t ordinal : chunks_of_kind(format::ChunkKind::SourceFiles)) cache_->prefetch(ordinal, true);
  const auto& samples = chunks_of_kind(format::ChunkKind::Samples);  // the navigator's followed samples
  if (!samples.empty()) cache_->prefetch(samples.front(), true);
  // Spans are sorted by first id: those starting among the first rows hold them.
  for (const EventSpan& span : spans_) {
    if (span.first >= kFirstViewRows) break;
    cache_->prefetch(span.ordinal, false);
  }
}

void RunModel::index_events() {
  const auto& chunks = reader_->chunks();
  for (const auto& c : chunks) {
    if (c.info.kind < 64) {
      if (by_kind_.size() <= c.info.kind) by_kind_.resize(c.info.kind + 1u);
      by_kind_[c.info.kind].push_back(c.ordinal);
    }
    max_step_ = std::max<int>(max_step_, c.info.step_last);
    if (c.info.kind == static_cast<uint16_t>(format::ChunkKind::OptimizerStep))
      max_optimizer_step_ = std::max<int>(max_optimizer_step_, c.info.step_last);
    if (c.info.kind == static_cast<uint16_t>(format::ChunkKind::RunMeta)) meta_ordinal_ = static_cast<int>(c.ordinal);
    if (c.info.kind != static_cast<uint16_t>(format::ChunkKind::Events)) continue;
    if (c.info.event_first == UINT64_MAX || c.info.event_last < c.info.event_first) continue;
    spans_.push_back({c.info.event_first, c.info.event_last, c.info.step_first, c.info.step_last, c.ordinal});
  }
  std::sort(spans_.begin(), spans_.end(), [](const EventSpan& a, const EventSpan& b) { return a.first < b.first; });
  for (const auto& s : spans_) {
    event_count_ = std::max(event_count_, s.last + 1);
    max_span_len_ = std::max(max_span_len_, s.last - s.first);
  }
}

const RunInfo& RunModel::info() {
  if (status_ != RunStatus::Open || (info_.loaded && info_ordinal_ == meta_ordinal_)) return info_;
  if (meta_ordinal_ < 0) {
    info_.loaded = true;
    return info_;
  }
  // A live run's newer RunMeta replaces the shown metadata once it is read.
  auto chunk = cache_->get_pinned(static_cast<uint32_t>(meta_ordinal_));
  if (!chunk) {
    if (cache_->failure(static_cast<uint32_t>(meta_ordinal_))) {
      info_.loaded = true;
      info_ordinal_ = meta_ordinal_;
    }
    return info_;
  }
  const schema::RunMeta* meta = chunk->root() ? chunk->root()->body_as_RunMeta() : nullptr;
  info_ = RunInfo{};
  info_.loaded = true;
  info_ordinal_ = meta_ordinal_;
  if (!meta) return info_;
  info_.script = str(meta->script());
  if (meta->argv())
    for (const auto* a : *meta->argv()) info_.argv.push_back(str(a));
  info_.date = format_date(meta->started_unix_ms());
  info_.device = str(meta->device());
  info_.hostname = str(meta->hostname());
  info_.torch_version = str(meta->torch_version());
  info_.exception = str(meta->exception());
  if (meta->notices())
    for (const auto* n : *meta->notices()) info_.notices.push_back(str(n->message()));
  // Only the final RunMeta counts steps (as `tvis inspect`): the first one,
  // written when recording began, is all a killed run has, and says 0.
  const bool final_meta = meta->complete() || meta->finished_unix_ms() != 0;
  info_.steps_recorded = final_meta ? meta->steps_recorded() : -1;
  if (meta->phase_timings())
    for (const auto* t : *meta->phase_timings()) info_.phase_timings.push_back({t->step(), t->phase(), t->ns(), t->own_ns()});
  info_.optimizer_class = str(meta->optimizer_class());
  if (meta->options())
    for (const auto* kv : *meta->options()) info_.options.emplace_back(str(kv->key()), str(kv->value()));
  if (meta->param_shards())
    for (const auto* s : *meta->param_shards()) {
      ParamShardInfo p;
      p.name = str(s->name());
      auto longs = [](const flatbuffers::Vector<int64_t>* v) {
        return v ? std::vector<int64_t>(v->begin(), v->end()) : std::vector<int64_t>{};
      };
      auto ints = [](const flatbuffers::Vector<int32_t>* v) {
        return v ? std::vector<int32_t>(v->begin(), v->end()) : std::vector<int32_t>{};
      };
      p.global_shape = longs(s->global_shape());
      p.local_shape = longs(s->local_shape());
      p.offsets = longs(s->offsets());
      p.flat_offset = s->flat_offset();
      p.mesh_shape = ints(s->mesh_shape());
      p.mesh_coord = ints(s->mesh_coord());
      p.placements = str(s->placements());
      p.source = str(s->source());
      info_.param_shards.push_back(std::move(p));
    }
  return info_;
}

bool RunModel::complete() const { return reader_ && reader_->complete(); }

const std::string& RunModel::recovery_notice() const {
  static const std::string kEmpty;
  return reader_ ? reader_->recovery_notice() : kEmpty;
}

// As `tvis inspect` counts: the metadata's steps_recorded; without it, the
// steps that have an OptimizerStep chunk; without those, every step seen (the
// events of step N+1's first fetch, where recording stopped, included).
int RunModel::step_count() const {
  if (info_.loaded && info_.steps_recorded >= 0) return info_.steps_recorded;
  if (max_optimizer_step_ >= 0) return max_optimizer_step_ + 1;
  return max_step_ + 1;
}

uint64_t RunModel::file_size() const {
  if (reader_) return reader_->size_seen();  // not the source's size: a recheck's answer is adopted whole
  return source_ ? source_->size() : 0;
}
uint64_t RunModel::bytes_read() const { return source_ ? source_->bytes_read() : 0; }

const std::vector<uint32_t>& RunModel::chunks_of_kind(format::ChunkKind kind) const {
  static const std::vector<uint32_t> kNone;
  const size_t k = static_cast<size_t>(kind);
  return k < by_kind_.size() ? by_kind_[k] : kNone;
}

const EventSpan* RunModel::span_of(uint64_t id) const {
  // Spans are sorted by first id and may overlap (a real recorder writes an
  // event when it ends, so a long call's chunk spans its children's chunks):
  // the innermost span holding `id` is the one with the largest first <= id.
  auto it = std::upper_bound(spans_.begin(), spans_.end(), id,
                             [](uint64_t v, const EventSpan& s) { return v < s.first; });
  while (it != spans_.begin()) {
    --it;
    if (id <= it->last) return &*it;
    if (it->first + max_span_len_ < id) break;  // no earlier span reaches id
  }
  return nullptr;
}

namespace {

// The event with `id` in a loaded batch (sorted by id), or nullptr.
const schema::Event* find_in_batch(const schema::EventBatch* batch, uint64_t first, uint64_t id) {
  if (!batch || !batch->events()) return nullptr;
  const auto* events = batch->events();
  const uint64_t k = id - first;  // dense chunks: the id is at its position
  if (k < events->size() && events->Get(static_cast<flatbuffers::uoffset_t>(k))->id() == id)
    return events->Get(static_cast<flatbuffers::uoffset_t>(k));
  flatbuffers::uoffset_t lo = 0, hi = events->size();
  while (lo < hi) {
    const flatbuffers::uoffset_t mid = lo + (hi - lo) / 2;
    if (events->Get(mid)->id() < id) lo = mid + 1; else hi = mid;
  }
  return lo < events->size() && events->Get(lo)->id() == id ? events->Get(lo) : nullptr;
}

}  // namespace

template <typename F>
void RunModel::each_span_covering(uint64_t id, F&& f) const {
  auto it = std::upper_bound(spans_.begin(), spans_.end(), id,
                             [](uint64_t v, const EventSpan& s) { return v < s.first; });
  while (it != spans_.begin()) {
    --it;
    if (id > it->last) {
      if (it->first + max_span_len_ < id) break;
      continue;
    }
    if (!f(*it)) return;
  }
}

const schema::Event* RunModel::event(uint64_t id) {
  if (!cache_) return nullptr;
  // Every span that covers `id`, innermost first; the event is in exactly one.
  const schema::Event* found = nullptr;
  each_span_covering(id, [&](const EventSpan& span) {
    auto chunk = cache_->get(span.ordinal);
    if (!chunk || !chunk->root()) return true;  // loading (or failed): try the others
    found = find_in_batch(chunk->root()->body_as_EventBatch(), span.first, id);
    return found == nullptr;
  });
  return found;
}

CallRef RunModel::call(uint64_t id) {
  if (!cache_) return {};
  CallRef found;
  each_span_covering(id, [&](const EventSpan& span) {
    auto chunk = cache_->get(span.ordinal);
    if (!chunk || !chunk->root()) return true;  // loading (or failed): try the others
    const schema::Event* e = find_in_batch(chunk->root()->body_as_EventBatch(), span.first, id);
    if (e) found = CallRef(std::move(chunk), e);
    return !found;
  });
  return found;
}

const format::Status* RunModel::event_failure(uint64_t id) const {
  const EventSpan* span = span_of(id);
  return span && cache_ ? cache_->failure(span->ordinal) : nullptr;
}

EventState RunModel::event_state(uint64_t id) {
  if (!cache_) return EventState::Loading;
  if (event(id)) return EventState::Present;
  // event() asked for every covering chunk: any still in flight may hold it.
  bool failed = false, loading = false;
  each_span_covering(id, [&](const EventSpan& span) {
    if (cache_->failure(span.ordinal)) failed = true;
    else if (!cache_->get(span.ordinal)) loading = true;
    return !loading;
  });
  if (loading) return EventState::Loading;
  return failed ? EventState::Unreadable : EventState::NotRecorded;
}

const char* RunModel::not_recorded_label() const {
  return complete() ? "call not recorded" : "call not recorded (the run ended before it returned)";
}

std::optional<uint64_t> RunModel::first_event_of(int step, schema::Phase phase, bool* exhausted) {
  // Spans are sorted by first id but may overlap (see span_of): the smallest
  // matching id wins, and a span starting past it cannot hold a smaller one.
  *exhausted = false;
  std::optional<uint64_t> best;
  for (const auto& span : spans_) {
    if (best && span.first > *best) break;
    if (span.step_first >= 0 && (step < span.step_first || step > span.step_last)) continue;
    if (cache_->failure(span.ordinal)) continue;
    auto chunk = cache_->get(span.ordinal);
    if (!chunk) return std::nullopt;  // an earlier chunk must be known first: try next frame
    const auto* batch = chunk->root() ? chunk->root()->body_as_EventBatch() : nullptr;
    if (!batch || !batch->events()) continue;
    for (const auto* e : *batch->events())  // in id order
      if (e->step() == step && (phase == schema::Phase::None || e->phase() == phase)) {
        if (!best || e->id() < *best) best = e->id();
        break;
      }
  }
  *exhausted = !best;
  return best;
}

const char* phase_label(schema::Phase phase) {
  switch (phase) {
    case schema::Phase::Data: return "data";
    case schema::Phase::Forward: return "forward";
    case schema::Phase::Loss: return "loss";
    case schema::Phase::Backward: return "backward";
    case schema::Phase::Optimizer: return "optimizer";
    case schema::Phase::Evaluation: return "evaluation";
    default: return "";
  }
}

const char* event_kind_label(schema::EventKind kind) {
  switch (kind) {
    case schema::EventKind::ModuleCall: return "module";
    case schema::EventKind::FunctionCall: return "function";
    case schema::EventKind::PhaseBegin: return "phase begin";
    case schema::EventKind::PhaseEnd: return "phase end";
    case schema::EventKind::LossCall: return "loss";
    case schema::EventKind::OptimizerStep: return "optimizer step";
    case schema::EventKind::DataFetch: return "data fetch";
    case schema::EventKind::DatasetGetItem: return "getitem";
    case schema::EventKind::Transform: return "transform";
    case schema::EventKind::BackwardCall: return "backward";
    case schema::EventKind::GraphOp: return "graph op";
    case schema::EventKind::AllReduce: return "all-reduce";
    default: return "?";
  }
}

}  // namespace tvis::viewer
