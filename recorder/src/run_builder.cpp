#include "tvis/recorder/run_builder.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/container.h"

#include <xxhash.h>

namespace tvis::recorder {

using format::ChunkInfo;
using format::ChunkKind;

namespace {

std::vector<uint8_t> finish(flatbuffers::FlatBufferBuilder& fbb, schema::Body type, flatbuffers::Offset<void> body) {
  auto chunk = schema::CreateChunk(fbb, type, body);
  schema::FinishChunkBuffer(fbb, chunk);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace

format::Result<std::unique_ptr<RunBuilder>> RunBuilder::create(const BuilderOptions& options) {
  format::WriterOptions wo;
  wo.zstd_level = options.zstd_level;
  wo.max_backlog_bytes = options.max_backlog_bytes;
  wo.background_nice = options.writer_nice;
  auto w = format::RunWriter::create(options.path, wo);
  if (!w.ok()) return w.status();
  return std::unique_ptr<RunBuilder>(new RunBuilder(options, std::move(w.value())));
}

RunBuilder::RunBuilder(const BuilderOptions& options, std::unique_ptr<format::RunWriter> writer)
    : options_(options),
      writer_(std::move(writer)),
      f32_sparse_(options.data_chunk_bytes, [w = writer_.get()](uint64_t n) { return w->reuse_buffer(n); }),
      f32_grad_(options.data_chunk_bytes, [w = writer_.get()](uint64_t n) { return w->reuse_buffer(n); }),
      f32_dense_(options.data_chunk_bytes, [w = writer_.get()](uint64_t n) { return w->reuse_buffer(n); }),
      raw_(options.data_chunk_bytes, [w = writer_.get()](uint64_t n) { return w->reuse_buffer(n); }),
      weights_(options.data_chunk_bytes, [w = writer_.get()](uint64_t n) { return w->reuse_buffer(n); }) {}

RunBuilder::~RunBuilder() = default;

template <typename T>
uint32_t RunBuilder::append_table(ChunkKind kind, T&& body, int32_t step_first, int32_t step_last,
                                  uint64_t event_first, uint64_t event_last) {
  using Object = std::remove_reference_t<T>;
  ChunkInfo info;
  info.kind = static_cast<uint16_t>(kind);
  info.step_first = step_first;
  info.step_last = step_last;
  info.event_first = event_first;
  info.event_last = event_last;
  // Packed on an encoder thread (run_writer.h): the records move into the
  // closure, which is their only owner from here on.
  auto held = std::make_shared<Object>(std::move(body));
  return writer_->append_deferred(
      info,
      [held]() {
        flatbuffers::FlatBufferBuilder fbb(1024);
        auto off = Object::TableType::Pack(fbb, held.get());
        return finish(fbb, schema::BodyUnionTraits<Object>::enum_value, off.Union());
      },
      options_.zstd_level);
}

uint64_t RunBuilder::begin_event(std::unique_ptr<schema::EventT> ev) {
  const uint64_t id = next_event_id_++;
  ev->id = id;
  events_[id] = std::move(ev);
  ended_[id] = false;
  return id;
}

void RunBuilder::end_event(uint64_t id, int64_t t_end_ns) {
  auto it = events_.find(id);
  if (it == events_.end()) return;
  it->second->t_end_ns = t_end_ns;
  ended_[id] = true;
}

schema::EventT* RunBuilder::find_event(uint64_t id) {
  auto it = events_.find(id);
  return it == events_.end() ? nullptr : it->second.get();
}

size_t RunBuilder::relabel_subtrees(const std::vector<uint64_t>& roots, schema::Phase phase) {
  std::set<uint64_t> in(roots.begin(), roots.end());
  size_t changed = 0;
  for (auto& [id, ev] : events_) {  // by id: a parent comes before its children
    if (!in.count(id) && !(ev->parent >= 0 && in.count(static_cast<uint64_t>(ev->parent)))) continue;
    in.insert(id);
    if (ev->phase != phase) ev->phase = phase, ++changed;
  }
  return changed;
}

void RunBuilder::drop_sample_batches(const std::vector<uint64_t>& events) {
  const std::set<uint64_t> drop(events.begin(), events.end());
  records_.erase(std::remove_if(records_.begin(), records_.end(),
                                [&](const QueuedRecord& r) {
                                  const auto* b = r.body.AsSampleBatch();
                                  return b && drop.count(b->batch_event);
                                }),
                 records_.end());
}

RunBuilder::Data RunBuilder::data_class(const schema::TensorRecordT& rec, bool f32, bool sparse) {
  if (!f32) return Data::Raw;
  // Weights keep one buffer whatever their values (a zero-initialised bias
  // is mostly zero at the first boundary only): the boundaries line up.
  if (rec.role == schema::TensorRole::Weight) return Data::Weights;
  if (sparse) return Data::F32Sparse;
  switch (rec.role) {
    case schema::TensorRole::Grad:
    case schema::TensorRole::Update:
    case schema::TensorRole::GradOutput:
    case schema::TensorRole::GradInput: return Data::F32Grad;
    default: return Data::F32Dense;
  }
}

RunBuilder::DataBuffer& RunBuilder::buffer(Data d) {
  switch (d) {
    case Data::F32Sparse: return f32_sparse_;
    case Data::F32Grad: return f32_grad_;
    case Data::F32Dense: return f32_dense_;
    case Data::Weights: return weights_;
    default: return raw_;
  }
}

uint64_t RunBuilder::add_tensor(std::unique_ptr<schema::TensorRecordT> rec, const void* data, uint64_t size, bool f32,
                                bool sparse) {
  rec->id = next_tensor_id_++;
  std::tuple<uint64_t, uint64_t, uint64_t> key{0, 0, 0};
  const uint64_t align = f32 ? 4 : 8;
  // A boundary's weight keeps bytes of its own (others may point at them):
  // then each boundary's weight chunks line up with the last one's, whatever
  // was equal at either (BatchNorm's ones and zeros at init, an embedding
  // table recorded in the forward), and every boundary but a keyframe is a delta.
  const Data d = data_class(*rec, f32, sparse);
  const bool own_bytes = d == Data::Weights;
  last_hash_ = {0, 0};
  if (data && size >= kShareMinBytes) {
    const XXH128_hash_t h = XXH3_128bits(data, size);
    key = {size, h.high64, h.low64};
    last_hash_ = {size, h.low64};
    auto it = own_bytes ? copies_.end() : copies_.find(key);
    if (it != copies_.end() && it->second.step == rec->step && it->second.offset % align == 0) {
      const StoredCopy& c = it->second;
      rec->data_offset = c.offset;
      rec->data_size = size;
      if (c.ordinal != UINT32_MAX) {
        rec->data_chunk = c.ordinal;
      } else {
        buffer(c.data).records.push_back(rec.get());
      }
      ++shared_records_;
      shared_bytes_ += size;
      const uint64_t id = rec->id;
      tensors_.push_back(std::move(rec));
      return id;
    }
  }
  if (data && size >= kShareMinBytes && !own_bytes && share_leading_part(*rec, data, size, align)) {
    const uint64_t id = rec->id;
    tensors_.push_back(std::move(rec));
    return id;
  }
  if (data && size) {
    DataBuffer& buf = buffer(d);
    // A record of at least the chunk size (up to kHeldOversizeMax) starts a chunk and does not
    // count towards its cut (not for weights, whose boundaries' layouts must match).
    const bool oversize = size >= options_.data_chunk_bytes && d != Data::Weights;
    const bool held = oversize && size <= kHeldOversizeMax;
    if (!buf.chunk.empty() && (oversize || buf.chunk.value_bytes() - buf.oversize_bytes + size > options_.data_chunk_bytes))
      cut_buffer(d);
    rec->data_offset = buf.chunk.append(data, size, f32 ? 4 : 8);  // 8: keep 8-byte elements aligned
    if (held) buf.oversize_bytes = buf.chunk.value_bytes();
    if (size >= kShareMinBytes) {
      copies_.insert_or_assign(key, StoredCopy{d, rec->data_offset, UINT32_MAX, rec->step});
      sources_.insert_or_assign(data, SourceCopy{d, rec->data_offset, size, rec->step});
    }
    rec->data_size = size;
    buf.records.push_back(rec.get());
    buf.step_first = std::min(buf.step_first, rec->step);
    buf.step_last = std::max(buf.step_last, rec->step);
    bytes_kept_ += size;
  }
  const uint64_t id = rec->id;
  tensors_.push_back(std::move(rec));
  return id;
}

bool RunBuilder::share_leading_part(schema::TensorRecordT& rec, const void* data, uint64_t size, uint64_t align) {
  auto it = sources_.find(data);
  if (it == sources_.end()) return false;
  const SourceCopy& c = it->second;
  if (c.step != rec.step || size > c.size || c.offset % align != 0) return false;
  DataBuffer& buf = buffer(c.data);
  if (std::memcmp(buf.chunk.values_at(c.offset), data, size) != 0) return false;
  rec.data_offset = c.offset;
  rec.data_size = size;
  buf.records.push_back(&rec);  // its chunk ordinal comes at the cut, as the copy's
  ++shared_records_;
  shared_bytes_ += size;
  return true;
}

void RunBuilder::drop_sources(Data d) {
  for (auto it = sources_.begin(); it != sources_.end();) it = it->second.data == d ? sources_.erase(it) : std::next(it);
}

void RunBuilder::cut_buffer(Data d) {
  if (d == Data::Weights) return cut_weights();
  DataBuffer& buf = buffer(d);
  if (buf.chunk.empty()) return;
  ChunkInfo info;
  info.kind = static_cast<uint16_t>(ChunkKind::TensorData);
  const bool shuffled = d == Data::F32Grad || d == Data::F32Dense;
  info.filter = shuffled ? format::ChunkFilter::Shuffle4 : format::ChunkFilter::None;
  info.step_first = buf.step_first == INT32_MAX ? -1 : buf.step_first;
  info.step_last = buf.step_last;
  const int level = d == Data::F32Dense ? options_.dense_zstd_level : options_.zstd_level;
  const uint32_t ordinal = writer_->append(info, buf.chunk.finish(), level);
  for (auto* r : buf.records) r->data_chunk = ordinal;
  buf.records.clear();
  buf.oversize_bytes = 0;
  for (auto& [k, c] : copies_)
    if (c.data == d && c.ordinal == UINT32_MAX) c.ordinal = ordinal;
  drop_sources(d);
  buf.step_first = INT32_MAX;
  buf.step_last = -1;
}

void RunBuilder::cut_weights() {
  DataBuffer& buf = weights_;
  if (buf.chunk.empty()) return;
  drop_sources(Data::Weights);
  ChunkInfo info;
  info.kind = static_cast<uint16_t>(ChunkKind::TensorData);
  info.filter = format::ChunkFilter::Shuffle4;
  info.step_first = buf.step_first == INT32_MAX ? -1 : buf.step_first;
  info.step_last = buf.step_last;
  format::Bytes raw = buf.chunk.finish();
  const size_t k = weights_now_.size();
  const bool keyframe = !options_.xor_delta_weights || options_.weight_keyframe_every == 0 ||
                        boundaries_ % options_.weight_keyframe_every == 0;
  uint32_t ordinal;
  format::Bytes kept;  // this chunk's body: the next boundary's base
  if (!keyframe && k < weights_before_.size() && weights_before_[k].bytes.size() == raw.size()) {
    // One pass: `raw` becomes the delta, the base's buffer becomes this body.
    const uint32_t base = weights_before_[k].ordinal;
    kept = std::move(weights_before_[k].bytes);
    uint8_t* r = raw.data();
    uint8_t* b = kept.data();
    const size_t n = raw.size();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t x, y;
      std::memcpy(&x, r + i, 8);
      std::memcpy(&y, b + i, 8);
      const uint64_t d = x ^ y;
      std::memcpy(r + i, &d, 8);
      std::memcpy(b + i, &x, 8);
    }
    for (; i < n; ++i) {
      const uint8_t x = r[i];
      r[i] = uint8_t(x ^ b[i]);
      b[i] = x;
    }
    uint8_t trailer[format::kXorDeltaTrailerSize] = {};
    const uint32_t magic = format::kXorDeltaMagic;
    for (int j = 0; j < 4; ++j) trailer[j] = uint8_t(magic >> (8 * j)), trailer[4 + j] = uint8_t(base >> (8 * j));
    raw.insert(raw.end(), trailer, trailer + sizeof trailer);
    info.encoding = format::ChunkEncoding::XorDelta;
    ordinal = writer_->append(info, std::move(raw), options_.zstd_level);  // mostly zero bytes: the normal level
    ++delta_chunks_;
  } else {
    if (k < weights_before_.size()) kept = std::move(weights_before_[k].bytes);  // warm pages
    kept.assign(raw.begin(), raw.end());
    ordinal = writer_->append(info, std::move(raw), options_.dense_zstd_level);
  }
  if (k < weights_before_.size()) weights_before_[k].bytes = format::Bytes();
  weights_now_.push_back({ordinal, std::move(kept)});
  for (auto* r : buf.records) r->data_chunk = ordinal;
  buf.records.clear();
  for (auto& [key, c] : copies_)
    if (c.data == Data::Weights && c.ordinal == UINT32_MAX) c.ordinal = ordinal;
  buf.step_first = INT32_MAX;
  buf.step_last = -1;
}

void RunBuilder::end_weights() {
  cut_weights();
  if (weights_now_.empty()) return;
  weights_before_ = std::move(weights_now_);
  weights_now_.clear();
  ++boundaries_;
}

void RunBuilder::add_record(schema::BodyUnion body, int32_t step_first, int32_t step_last, uint64_t event_first,
                            uint64_t event_last) {
  if (body.type == schema::Body::NONE || format::kind_of_body(body.type) == ChunkKind::Index)
    throw std::invalid_argument("tvis: RunBuilder::add_record: a record of no chunk kind (Body " +
                                std::to_string(static_cast<int>(body.type)) + ")");
  records_.push_back({std::move(body), step_first, step_last, event_first, event_last});
}

void RunBuilder::write_meta(const schema::RunMetaT& meta) {
  append_table(ChunkKind::RunMeta, schema::RunMetaT(meta), -1, -1);
}

void RunBuilder::flush() {
  cut_buffer(Data::F32Sparse);
  cut_buffer(Data::F32Grad);
  cut_buffer(Data::F32Dense);
  cut_buffer(Data::Raw);
  cut_buffer(Data::Weights);
  copies_.clear();
  sources_.clear();
  if (!tensors_.empty()) {
    schema::TensorBatchT batch;
    int32_t s0 = INT32_MAX, s1 = -1;
    for (auto& t : tensors_) {
      s0 = std::min(s0, t->step);
      s1 = std::max(s1, t->step);
    }
    batch.tensors = std::move(tensors_);
    tensors_.clear();
    append_table(ChunkKind::Tensors, std::move(batch), s0 == INT32_MAX ? -1 : s0, s1);
  }
  // The step's records (optimizer steps, ...) go before its events: a reader of
  // a file cut short (a killed script) counts a step by its events, so the
  // events chunk is each flush's last and a counted step is a whole one.
  std::vector<QueuedRecord> records = std::move(records_);
  records_.clear();
  for (auto& r : records) append_record(std::move(r));
  // Every ended event goes out now, sorted by id; those that ended after a
  // later id was written (enclosing calls) in a chunk of their own.
  std::vector<std::unique_ptr<schema::EventT>> late, fresh;
  for (auto it = events_.begin(); it != events_.end();) {
    auto e = ended_.find(it->first);
    if (e == ended_.end() || !e->second) {
      ++it;
      continue;
    }
    ended_.erase(e);
    (it->first < written_end_ ? late : fresh).push_back(std::move(it->second));
    it = events_.erase(it);
  }
  write_events(std::move(late));
  write_events(std::move(fresh));
}

uint32_t RunBuilder::append_record(QueuedRecord r) {
  ChunkInfo info;
  info.kind = static_cast<uint16_t>(format::kind_of_body(r.body.type));
  info.step_first = r.step_first;
  info.step_last = r.step_last;
  info.event_first = r.event_first;
  info.event_last = r.event_last;
  // Packed on an encoder thread, as append_table's are: the record moves into the closure.
  auto held = std::make_shared<schema::BodyUnion>(std::move(r.body));
  return writer_->append_deferred(
      info,
      [held]() {
        flatbuffers::FlatBufferBuilder fbb(1024);
        auto off = held->Pack(fbb);
        return finish(fbb, held->type, off);
      },
      options_.zstd_level);
}

void RunBuilder::write_events(std::vector<std::unique_ptr<schema::EventT>> events) {
  if (events.empty()) return;
  schema::EventBatchT eb;
  int32_t s0 = INT32_MAX, s1 = -1;
  for (const auto& e : events) {
    s0 = std::min(s0, e->step);
    s1 = std::max(s1, e->step);
  }
  const uint64_t e0 = events.front()->id, e1 = events.back()->id;
  written_end_ = std::max(written_end_, e1 + 1);
  eb.events = std::move(events);
  append_table(ChunkKind::Events, std::move(eb), s0 == INT32_MAX ? -1 : s0, s1, e0, e1);
}

void RunBuilder::write_sources(schema::SourceFilesT sources) {
  append_table(ChunkKind::SourceFiles, std::move(sources), -1, -1);
}

format::Status RunBuilder::finalize(const schema::SourceFilesT& sources, const schema::RunMetaT& meta, int64_t t_end_ns) {
  for (auto& [id, ended] : ended_) {
    if (!ended) {
      events_[id]->t_end_ns = t_end_ns;
      ended = true;
    }
  }
  flush();
  append_table(ChunkKind::SourceFiles, schema::SourceFilesT(sources), -1, -1);
  write_meta(meta);
  return writer_->finalize();
}

format::WriterStats RunBuilder::writer_stats() const { return writer_->stats(); }

}  // namespace tvis::recorder
