#include "tvis/viewer_model/tensor_ref.h"

#include "tvis/viewer_model/tensor_index.h"

namespace tvis::viewer {

uint64_t TensorRef::id() const { return rec_->id(); }
int64_t TensorRef::event() const { return rec_->event(); }
TensorRole TensorRef::role() const { return rec_->role(); }
int TensorRef::slot() const { return rec_->slot(); }
int TensorRef::step() const { return rec_->step(); }
int TensorRef::sample() const { return rec_->sample(); }
DType TensorRef::dtype() const { return rec_->dtype(); }
const char* TensorRef::dtype_label() const { return viewer::dtype_label(rec_->dtype()); }
bool TensorRef::requires_grad() const { return rec_->requires_grad(); }
ValueKind TensorRef::value_kind() const { return rec_->value_kind(); }
uint32_t TensorRef::data_chunk() const { return rec_->data_chunk(); }
std::optional<TensorStats> TensorRef::stats() const { return tensor_stats(*rec_); }
KeptValues TensorRef::kept() const { return kept_values(*rec_); }

std::string_view TensorRef::name() const {
  return rec_->name() ? std::string_view(rec_->name()->c_str(), rec_->name()->size()) : std::string_view();
}

std::string_view TensorRef::device() const {
  return rec_->device() ? std::string_view(rec_->device()->c_str(), rec_->device()->size()) : std::string_view();
}

Shape TensorRef::shape() const {
  return rec_->shape() ? Shape(rec_->shape()->begin(), rec_->shape()->end()) : Shape();
}

size_t TensorRef::rank() const { return rec_->shape() ? rec_->shape()->size() : 0; }

int64_t TensorRef::dim(size_t i) const { return i < rank() ? rec_->shape()->Get(static_cast<uint32_t>(i)) : 0; }

std::string TensorRef::shape_label() const { return viewer::shape_label(rec_->shape()); }

uint64_t TensorRef::element_count() const { return viewer::element_count(rec_->shape()); }

ThumbnailView TensorRef::thumbnail() const {
  ThumbnailView t;
  if (rec_->thumbnail()) {
    t.values = rec_->thumbnail()->data();
    t.size = rec_->thumbnail()->size();
  }
  if (rec_->thumbnail_shape()) t.shape.assign(rec_->thumbnail_shape()->begin(), rec_->thumbnail_shape()->end());
  return t;
}

}  // namespace tvis::viewer
