#include "tvis/viewer_model/tensor_index.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "tvis/viewer_model/run_model.h"
#include "tvis/format/chunk_kind.h"

namespace tvis::viewer {

void TensorIndex::reset() {
  indexed_.clear();
  ready_steps_.clear();
  by_event_.clear();
  by_id_.clear();
}

bool TensorIndex::ready(RunModel& model, int step) { return index_step(model, step); }

bool TensorIndex::index_step(RunModel& model, int step) {
  if (ready_steps_.count(step)) return true;
  bool all = true;
  if (!model.cache_if_open()) return false;
  const auto& chunks = model.chunks_of_kind(format::ChunkKind::Tensors);
  auto& cache = model.cache();
  for (uint32_t ordinal : chunks) {
    if (indexed_.count(ordinal)) continue;
    if (step != INT32_MIN) {
      const auto& info = model.chunk_info(ordinal);
      if (step < info.step_first || step > info.step_last) continue;
    }
    if (cache.failure(ordinal)) {
      indexed_.insert(ordinal);  // unreadable: its records stay unknown
      continue;
    }
    if (!cache.loading(ordinal) && load_budget_ <= 0) {  // not asked yet, and this frame's loads are spent
      all = false;
      continue;
    }
    const bool was_loading = cache.loading(ordinal);
    auto chunk = cache.get(ordinal);
    // Resident chunks cost a lookup only, but count them (rare); a read the
    // cache deferred (its frame budget) costs nothing.
    if (!was_loading && (chunk || cache.loading(ordinal))) --load_budget_;
    if (!chunk) {
      all = false;
      continue;
    }
    indexed_.insert(ordinal);
    const auto* batch = chunk->root() ? chunk->root()->body_as_TensorBatch() : nullptr;
    if (!batch || !batch->tensors()) continue;
    const auto* tensors = batch->tensors();
    for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
      const auto* t = tensors->Get(i);
      by_id_[t->id()] = Loc{ordinal, i};
      if (t->event() >= 0) by_event_[static_cast<uint64_t>(t->event())].push_back(Loc{ordinal, i});
    }
  }
  if (all) ready_steps_.insert(step);
  return all;
}

TensorRef TensorIndex::resolve(RunModel& model, Loc loc, bool* complete) {
  auto chunk = model.cache().get(loc.ordinal);  // re-read if it was evicted
  if (!chunk) {
    *complete = false;
    return {};
  }
  const auto* batch = chunk->root() ? chunk->root()->body_as_TensorBatch() : nullptr;
  if (!batch || !batch->tensors() || loc.index >= batch->tensors()->size()) return {};
  return TensorRef{chunk, batch->tensors()->Get(loc.index)};
}

std::vector<TensorRef> TensorIndex::for_event(RunModel& model, uint64_t event, int step, bool* complete) {
  *complete = index_step(model, step);
  std::vector<TensorRef> out;
  auto it = by_event_.find(event);
  if (it == by_event_.end()) return out;
  for (Loc loc : it->second)
    if (TensorRef ref = resolve(model, loc, complete)) out.push_back(std::move(ref));
  return out;
}

TensorRef TensorIndex::by_id(RunModel& model, uint64_t id, int step, bool* complete) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) {
    *complete = index_step(model, step);
    it = by_id_.find(id);
    if (it == by_id_.end()) return {};
  } else {
    *complete = true;
  }
  return resolve(model, it->second, complete);
}

ChunkRead TensorIndex::read_values(RunModel& model, const schema::TensorRecord& rec, TensorValues* out,
                                   std::string* error) {
  *out = {};
  if (rec.kept() == schema::ValuesKept::None) {
    *error = "Statistics only: values were not kept (larger than --max-elems, or an evaluation pass recorded without --eval-values).";
    return ChunkRead::Ready;
  }
  const auto& chunks = model.chunks_of_kind(format::ChunkKind::TensorData);
  if (std::find(chunks.begin(), chunks.end(), rec.data_chunk()) == chunks.end()) {
    *error = "tensor " + std::to_string(rec.id()) + ": chunk " + std::to_string(rec.data_chunk()) +
             " is not a tensor data chunk";
    return ChunkRead::Ready;
  }
  if (const format::Status* f = model.cache().failure(rec.data_chunk())) {
    *error = f->message;
    return ChunkRead::Ready;
  }
  auto chunk = model.cache().get(rec.data_chunk());
  if (!chunk) return ChunkRead::Loading;
  *error = decode_values(rec, *chunk, out);
  return ChunkRead::Ready;
}

KeptValues kept_values(const schema::TensorRecord& rec) {
  return {rec.kept(), rec.kept_rows(), rec.shape() && rec.shape()->size() ? rec.shape()->Get(0) : int64_t{0}};
}

int dtype_size(schema::DType d) {
  switch (d) {
    case schema::DType::Float32: case schema::DType::Int32: return 4;
    case schema::DType::Float64: case schema::DType::Int64: case schema::DType::Complex64: return 8;
    case schema::DType::Float16: case schema::DType::BFloat16: case schema::DType::Int16: return 2;
    case schema::DType::Int8: case schema::DType::UInt8: case schema::DType::Bool: return 1;
    case schema::DType::Complex128: return 16;
    default: return 0;
  }
}

const char* dtype_label(schema::DType d) {
  switch (d) {
    case schema::DType::Float32: return "float32";
    case schema::DType::Float64: return "float64";
    case schema::DType::Float16: return "float16";
    case schema::DType::BFloat16: return "bfloat16";
    case schema::DType::Int64: return "int64";
    case schema::DType::Int32: return "int32";
    case schema::DType::Int16: return "int16";
    case schema::DType::Int8: return "int8";
    case schema::DType::UInt8: return "uint8";
    case schema::DType::Bool: return "bool";
    case schema::DType::Complex64: return "complex64";
    case schema::DType::Complex128: return "complex128";
    default: return "unknown";
  }
}

std::string shape_label(const flatbuffers::Vector<int64_t>* shape) {
  std::string out = "[";
  if (shape)
    for (flatbuffers::uoffset_t i = 0; i < shape->size(); ++i) {
      if (i) out += ", ";
      out += std::to_string(shape->Get(i));
    }
  return out + "]";
}

std::string shape_label(const Shape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

uint64_t element_count(const Shape& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return 0;
    if (d != 0 && n > UINT64_MAX / static_cast<uint64_t>(d)) return 0;
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

uint64_t element_count(const flatbuffers::Vector<int64_t>* shape) {
  uint64_t n = 1;
  if (!shape) return n;
  for (int64_t d : *shape) {
    if (d < 0) return 0;
    if (d != 0 && n > UINT64_MAX / static_cast<uint64_t>(d)) return 0;
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

double half_to_double(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, frac = h & 0x3FF;
  double v;
  if (exp == 0) v = std::ldexp(frac, -24);
  else if (exp == 31) v = frac ? NAN : INFINITY;
  else v = std::ldexp(frac + 1024, exp - 25);
  return sign ? -v : v;
}

double element(schema::DType d, const uint8_t* p) {
  switch (d) {
    case schema::DType::Float32: return load<float>(p);
    case schema::DType::Float64: return load<double>(p);
    case schema::DType::Float16: return half_to_double(load<uint16_t>(p));
    case schema::DType::BFloat16: {
      const uint32_t bits = static_cast<uint32_t>(load<uint16_t>(p)) << 16;
      return load<float>(reinterpret_cast<const uint8_t*>(&bits));
    }
    case schema::DType::Int64: return static_cast<double>(load<int64_t>(p));
    case schema::DType::Int32: return load<int32_t>(p);
    case schema::DType::Int16: return load<int16_t>(p);
    case schema::DType::Int8: return static_cast<int8_t>(*p);
    case schema::DType::UInt8: return *p;
    case schema::DType::Bool: return *p ? 1.0 : 0.0;
    case schema::DType::Complex64: return load<float>(p);   // real part
    case schema::DType::Complex128: return load<double>(p);  // real part
    default: return NAN;
  }
}

}  // namespace

std::string decode_values(const schema::TensorRecord& rec, const format::DecodedChunk& data, TensorValues* out) {
  const std::string who = "tensor " + std::to_string(rec.id());
  if (rec.kept() == schema::ValuesKept::None) return "no values kept: statistics only";
  const int esize = dtype_size(rec.dtype());
  if (esize == 0) return who + ": unknown dtype";
  std::vector<int64_t> shape;
  if (rec.shape())
    for (int64_t d : *rec.shape()) {
      if (d < 0) return who + ": negative dimension in shape";
      shape.push_back(d);
    }
  bool partial = false;
  if (rec.kept() == schema::ValuesKept::LeadingRows) {
    if (shape.empty()) return who + ": leading rows of a 0-d tensor";
    if (rec.kept_rows() < 0 || rec.kept_rows() > shape[0]) return who + ": kept_rows outside dim 0";
    partial = rec.kept_rows() < shape[0];
    shape[0] = rec.kept_rows();
  }
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d != 0 && n > (1ull << 40) / static_cast<uint64_t>(d)) return who + ": shape too large";
    n *= static_cast<uint64_t>(d);
  }
  if (n * static_cast<uint64_t>(esize) != rec.data_size())
    return who + ": " + std::to_string(rec.data_size()) + " value bytes for " + std::to_string(n) + " " +
           dtype_label(rec.dtype()) + " elements";
  const auto* td = data.root() ? data.root()->body_as_TensorData() : nullptr;
  if (!td || !td->bytes()) return who + ": chunk " + std::to_string(rec.data_chunk()) + " holds no tensor data";
  const uint64_t have = td->bytes()->size();
  if (rec.data_offset() > have || rec.data_size() > have - rec.data_offset())
    return who + ": data range " + std::to_string(rec.data_offset()) + "+" + std::to_string(rec.data_size()) +
           " outside chunk " + std::to_string(rec.data_chunk()) + " (" + std::to_string(have) + " bytes)";
  const uint8_t* p = td->bytes()->data() + rec.data_offset();
  out->values.resize(n);
  for (uint64_t i = 0; i < n; ++i) out->values[i] = element(rec.dtype(), p + i * static_cast<uint64_t>(esize));
  out->shape = std::move(shape);
  out->partial = partial;
  return {};
}

}  // namespace tvis::viewer
