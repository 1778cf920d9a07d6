// py_records.cpp: dict -> schema record conversions (see py_records.h).
#include "py_records.h"

#include <pybind11/stl.h>

namespace tvis::recorder {

namespace {

py::dict as_dict(py::handle h) { return py::reinterpret_borrow<py::dict>(h); }

template <typename T>
std::vector<T> list_of(const py::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return {};
  return d[key].cast<std::vector<T>>();
}

/// Calls `fn(dict)` for each element of the list at `d[key]`, if any.
template <typename Fn>
void each(const py::dict& d, const char* key, Fn&& fn) {
  if (!d.contains(key) || d[key].is_none()) return;
  for (py::handle h : d[key]) fn(as_dict(h));
}

std::unique_ptr<schema::TransformStepT> transform_from(const py::dict& d) {
  auto t = std::make_unique<schema::TransformStepT>();
  t->name = get<std::string>(d, "name", "");
  t->class_name = get<std::string>(d, "class_name", "");
  t->event = get<uint64_t>(d, "event", 0);
  t->input = get<int64_t>(d, "input", -1);
  t->output = get<int64_t>(d, "output", -1);
  t->input_kind = static_cast<schema::ValueKind>(get<int>(d, "input_kind", 0));
  t->output_kind = static_cast<schema::ValueKind>(get<int>(d, "output_kind", 0));
  t->rng_state = get<int64_t>(d, "rng_state", -1);
  return t;
}

}  // namespace

std::vector<std::unique_ptr<schema::KeyValueT>> key_values(py::handle seq) {
  std::vector<std::unique_ptr<schema::KeyValueT>> out;
  if (seq.is_none()) return out;
  for (py::handle kv : seq) {
    auto t = py::reinterpret_borrow<py::tuple>(kv);
    auto e = std::make_unique<schema::KeyValueT>();
    e->key = py::str(t[0]);
    e->value = py::str(t[1]);
    out.push_back(std::move(e));
  }
  return out;
}

std::unique_ptr<schema::SampleBatchT> sample_batch_from(const py::dict& d, int default_step) {
  auto r = std::make_unique<schema::SampleBatchT>();
  r->step = get<int>(d, "step", default_step);
  r->batch_event = get<uint64_t>(d, "batch_event", 0);
  r->batch = list_of<uint64_t>(d, "batch");
  each(d, "samples", [&](const py::dict& sd) {
    auto s = std::make_unique<schema::SampleT>();
    s->id = get<int>(sd, "id", 0);
    s->step = r->step;
    s->dataset_index = get<int64_t>(sd, "dataset_index", -1);
    s->batch_position = get<int>(sd, "batch_position", -1);
    s->input = get<int64_t>(sd, "input", -1);
    s->label = get<std::string>(sd, "label", "");
    s->label_index = get<int64_t>(sd, "label_index", -1);
    each(sd, "transforms", [&](const py::dict& td) { s->transforms.push_back(transform_from(td)); });
    r->samples.push_back(std::move(s));
  });
  return r;
}

std::unique_ptr<schema::InsightBatchT> insight_batch_from(const py::dict& d, int default_step) {
  auto r = std::make_unique<schema::InsightBatchT>();
  each(d, "attention", [&](const py::dict& a) {
    auto x = std::make_unique<schema::AttentionRecordT>();
    x->step = get<int>(a, "step", default_step);
    x->module_ = get<std::string>(a, "module", "");
    x->event = get<uint64_t>(a, "event", 0);
    x->sample = get<int>(a, "sample", 0);
    x->shape = list_of<int64_t>(a, "shape");
    x->weights = get<uint64_t>(a, "weights", 0);
    x->tokens = list_of<int64_t>(a, "tokens");
    x->token_labels = list_of<std::string>(a, "token_labels");
    r->attention.push_back(std::move(x));
  });
  each(d, "gradcam", [&](const py::dict& g) {
    auto x = std::make_unique<schema::GradCamRecordT>();
    x->step = get<int>(g, "step", default_step);
    x->module_ = get<std::string>(g, "module", "");
    x->sample = get<int>(g, "sample", 0);
    x->target = static_cast<schema::CamTarget>(get<int>(g, "target", 0));
    x->class_index = get<int64_t>(g, "class_index", 0);
    x->map = get<uint64_t>(g, "map", 0);
    r->gradcam.push_back(std::move(x));
  });
  each(d, "embeddings", [&](const py::dict& e) {
    auto x = std::make_unique<schema::EmbeddingRecordT>();
    x->step = get<int>(e, "step", default_step);
    x->module_ = get<std::string>(e, "module", "");
    x->samples = list_of<int32_t>(e, "samples");
    x->labels = list_of<std::string>(e, "labels");
    x->vectors = get<uint64_t>(e, "vectors", 0);
    r->embeddings.push_back(std::move(x));
  });
  each(d, "tables", [&](const py::dict& t) {
    auto x = std::make_unique<schema::EmbeddingTableRecordT>();
    x->module_ = get<std::string>(t, "module", "");
    x->rows = get<uint64_t>(t, "rows", 0);
    x->labels = list_of<std::string>(t, "labels");
    r->tables.push_back(std::move(x));
  });
  each(d, "library_attention", [&](const py::dict& l) {
    auto x = std::make_unique<schema::LibraryAttentionT>();
    x->module_ = get<std::string>(l, "module", "");
    x->kind = get<std::string>(l, "kind", "");
    r->library_attention.push_back(std::move(x));
  });
  return r;
}

}  // namespace tvis::recorder
