// Tensor values by id, one bounded cache for the whole viewer (decoded_values.h).
#include "tvis/viewer_model/decoded_values.h"

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

namespace {

std::shared_ptr<const DecodedTensor> loading(uint64_t id) {
  auto d = std::make_shared<DecodedTensor>();
  d->id = id;
  return d;
}

}  // namespace

void DecodedValues::reset() {
  slots_.clear();
  lru_.clear();
  held_ = 0;
}

uint64_t DecodedValues::size_of(const DecodedTensor& d) {
  return d.values.values.size() * sizeof(double) + d.values.shape.size() * sizeof(int64_t) + sizeof(DecodedTensor);
}

void DecodedValues::touch(uint64_t id) {
  Slot& slot = slots_.at(id);
  lru_.splice(lru_.begin(), lru_, slot.at);
}

std::shared_ptr<const DecodedTensor> DecodedValues::keep(DecodedTensor d) {
  auto value = std::make_shared<const DecodedTensor>(std::move(d));
  const uint64_t id = value->id;
  lru_.push_front(id);
  slots_[id] = Slot{value, lru_.begin()};
  held_ += size_of(*value);
  while (held_ > budget_ && lru_.size() > 1) {  // the newest stays, even past the budget
    auto it = slots_.find(lru_.back());
    held_ -= size_of(*it->second.value);
    slots_.erase(it);
    lru_.pop_back();
  }
  return value;
}

std::shared_ptr<const DecodedTensor> DecodedValues::get(uint64_t id, int step) {
  if (slots_.count(id)) {
    touch(id);
    return slots_.at(id).value;
  }
  bool complete = true;
  TensorRef ref = model_.tensors().by_id(model_, id, step, &complete);
  if (ref) return get(*ref.record());
  if (!complete) return loading(id);
  auto d = std::make_shared<DecodedTensor>();  // not kept: a live run's next chunks may hold it
  d->id = id;
  d->loading = false;
  d->missing = true;
  d->error = "tensor " + std::to_string(id) + " is not in the run";
  return d;
}

std::shared_ptr<const DecodedTensor> DecodedValues::get(const schema::TensorRecord& rec) {
  const uint64_t id = rec.id();
  if (slots_.count(id)) {
    touch(id);
    return slots_.at(id).value;
  }
  DecodedTensor d;
  d.id = id;
  if (model_.tensors().read_values(model_, rec, &d.values, &d.error) == ChunkRead::Loading) return loading(id);
  d.loading = false;
  d.dtype = rec.dtype();
  d.bytes = rec.dtype() == DType::UInt8;
  return keep(std::move(d));
}

}  // namespace tvis::viewer
