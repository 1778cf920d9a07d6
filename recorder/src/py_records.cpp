// py_records.cpp: dict -> schema record conversions (see py_records.h).
#include "py_records.h"

#include <pybind11/stl.h>

namespace tvis::recorder {

namespace {

py::dict as_dict(py::handle h) {
  if (!py::isinstance<py::dict>(h)) throw py::type_error("tvis: a record element is not a dict");
  return py::reinterpret_borrow<py::dict>(h);
}

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
  TVIS_CHECK_SCHEMA_KEYS(d, TransformStep,
             "name", "class_name", "event", "input", "output", "input_kind", "output_kind", "rng_state");
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

void check_keys(const py::dict& d, const char* record, std::initializer_list<std::string_view> known) {
  for (auto item : d) {
    if (!py::isinstance<py::str>(item.first))
      throw py::value_error(std::string("tvis: ") + record + " record has a key that is not a string");
    auto key = item.first.cast<std::string>();
    bool ok = false;
    for (auto k : known) ok = ok || k == key;
    if (ok) continue;
    std::string names;
    for (auto k : known) names += (names.empty() ? "" : ", ") + std::string(k);
    throw py::value_error("tvis: " + std::string(record) + " record has no key '" + key + "' (its keys: " + names +
                          ")");
  }
}

void check_loss_keys(const py::dict& d) {
  TVIS_CHECK_SCHEMA_KEYS(d, LossRecord, "step", "event", "call", "reduction", "args", "value", "value_repr", "targets",
                               "logits", "samples", "tokens", "outer", "call_value");
  each(d, "samples", [](const py::dict& sd) {
    TVIS_CHECK_SCHEMA_KEYS(sd, SampleLoss,
               "sample", "batch_row", "logits", "target", "p_target", "neg_log_p", "loss", "predicted");
  });
  if (d.contains("tokens") && !d["tokens"].is_none())
    TVIS_CHECK_SCHEMA_KEYS(as_dict(d["tokens"]), TokenLayout,
               "batch", "tokens", "vocab", "ignore_index", "ignored", "token_losses");
}

void check_optimizer_step_keys(const py::dict& d) {
  TVIS_CHECK_SCHEMA_KEYS(d, OptimizerStepRecord,
             "step", "event", "optimizer_class", "groups", "params", "skipped", "grad_scale");
  each(d, "groups", [](const py::dict& g) { TVIS_CHECK_SCHEMA_KEYS(g, ParamGroup, "hyper", "params"); });
}

void check_run_meta_keys(const py::dict& d) {
  TVIS_CHECK_SCHEMA_KEYS(d, RunMeta,
             "script", "argv", "cwd", "project_dir", "python_version", "torch_version", "device", "hostname",
              "tvis_version", "started_unix_ms", "finished_unix_ms", "steps_requested", "steps_recorded",
              "complete", "exit_code", "exception", "traceback", "notices", "options", "optimizer_class",
              "param_shards");
  each(d, "param_shards", [](const py::dict& s) {
    TVIS_CHECK_SCHEMA_KEYS(s, ParamShard, "name", "global_shape", "local_shape", "offsets", "flat_offset", "mesh_shape",
                                 "mesh_coord", "placements", "source");
  });
}

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
  TVIS_CHECK_SCHEMA_KEYS(d, SampleBatch, "step", "batch_event", "batch", "samples");
  auto r = std::make_unique<schema::SampleBatchT>();
  r->step = get<int>(d, "step", default_step);
  r->batch_event = get<uint64_t>(d, "batch_event", 0);
  r->batch = list_of<uint64_t>(d, "batch");
  each(d, "samples", [&](const py::dict& sd) {
    TVIS_CHECK_SCHEMA_KEYS(sd, Sample,
               "id", "dataset_index", "batch_position", "input", "label", "label_index", "transforms");
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
  TVIS_CHECK_SCHEMA_KEYS(d, InsightBatch, "attention", "gradcam", "embeddings", "tables", "library_attention");
  auto r = std::make_unique<schema::InsightBatchT>();
  each(d, "attention", [&](const py::dict& a) {
    TVIS_CHECK_SCHEMA_KEYS(a, AttentionRecord,
               "step", "module", "event", "sample", "shape", "weights", "tokens", "token_labels", "source", "kind",
                "mask", "full", "dropout");
    auto x = std::make_unique<schema::AttentionRecordT>();
    x->step = get<int>(a, "step", default_step);
    x->module_ = get<std::string>(a, "module", "");
    x->event = get<uint64_t>(a, "event", 0);
    x->sample = get<int>(a, "sample", 0);
    x->shape = list_of<int64_t>(a, "shape");
    x->weights = get<uint64_t>(a, "weights", 0);
    x->tokens = list_of<int64_t>(a, "tokens");
    x->token_labels = list_of<std::string>(a, "token_labels");
    x->source = get<int>(a, "source", 0) == 1 ? schema::AttentionSource::Rebuilt : schema::AttentionSource::Captured;
    x->kind = get<std::string>(a, "kind", "");
    x->mask = get<int64_t>(a, "mask", -1);
    x->full = list_of<int64_t>(a, "full");
    x->dropout = get<float>(a, "dropout", 0.0f);
    r->attention.push_back(std::move(x));
  });
  each(d, "gradcam", [&](const py::dict& g) {
    TVIS_CHECK_SCHEMA_KEYS(g, GradCamRecord, "step", "module", "sample", "target", "class_index", "map");
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
    TVIS_CHECK_SCHEMA_KEYS(e, EmbeddingRecord, "step", "module", "samples", "labels", "vectors", "positions", "rows",
                                      "row_labels", "batch_vectors", "batch_size");
    auto x = std::make_unique<schema::EmbeddingRecordT>();
    x->step = get<int>(e, "step", default_step);
    x->module_ = get<std::string>(e, "module", "");
    x->samples = list_of<int32_t>(e, "samples");
    x->labels = list_of<std::string>(e, "labels");
    x->vectors = get<uint64_t>(e, "vectors", 0);
    x->positions = list_of<int32_t>(e, "positions");
    x->rows = list_of<int32_t>(e, "rows");
    x->row_labels = list_of<std::string>(e, "row_labels");
    x->batch_vectors = get<uint64_t>(e, "batch_vectors", 0);
    x->batch_size = get<int>(e, "batch_size", 0);
    r->embeddings.push_back(std::move(x));
  });
  each(d, "tables", [&](const py::dict& t) {
    TVIS_CHECK_SCHEMA_KEYS(t, EmbeddingTableRecord, "module", "rows", "labels");
    auto x = std::make_unique<schema::EmbeddingTableRecordT>();
    x->module_ = get<std::string>(t, "module", "");
    x->rows = get<uint64_t>(t, "rows", 0);
    x->labels = list_of<std::string>(t, "labels");
    r->tables.push_back(std::move(x));
  });
  each(d, "library_attention", [&](const py::dict& l) {
    TVIS_CHECK_SCHEMA_KEYS(l, LibraryAttention, "module", "kind");
    auto x = std::make_unique<schema::LibraryAttentionT>();
    x->module_ = get<std::string>(l, "module", "");
    x->kind = get<std::string>(l, "kind", "");
    r->library_attention.push_back(std::move(x));
  });
  return r;
}

}  // namespace tvis::recorder
