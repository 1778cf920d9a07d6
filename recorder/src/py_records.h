// py_records.h: schema records built from the plain dicts the Python side of
// the recorder hands over. One place that knows both shapes, so the hooks stay
// Python and the tables stay FlatBuffers.
//
// Contract: every key is optional; a missing or None value takes the schema's
// default. A key the record does not have is an error (ValueError naming the
// key and the record), so a misspelt key never records a default silently;
// the Python side builds these dicts with tvis/records.py's constructors.
// Tensor ids are the ones Recorder.tensor()/tensors() returned.
#pragma once

#include <pybind11/pybind11.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tvis/schema/recording_fields.h>
#include <tvis/schema/recording_generated.h>

namespace tvis::recorder {

namespace py = pybind11;

/// `d[key]` cast to T, or `fallback` when the key is missing or None.
template <typename T>
T get(const py::dict& d, const char* key, T fallback) {
  if (!d.contains(key)) return fallback;
  py::handle v = d[key];
  if (v.is_none()) return fallback;
  return v.cast<T>();
}

/// Raises ValueError when `d` has a key not in `known`, naming it and `record`
/// (the schema table the dict stands for).
void check_keys(const py::dict& d, const char* record, std::initializer_list<std::string_view> known);

/// check_keys(d, "Table", {keys...}) whose keys are proven, when this compiles,
/// to be fields of `Table` in schema/recording.fbs (recording_fields.h,
/// generated from it): a key the schema lacks, or a table it lacks, fails the build.
#define TVIS_CHECK_SCHEMA_KEYS(d, Table, ...)                                                          \
  do {                                                                                                 \
    static_assert(::tvis::schema_fields::has_all(::tvis::schema_fields::Table, {__VA_ARGS__}),         \
                  "a key that is not a field of table " #Table " in schema/recording.fbs");            \
    ::tvis::recorder::check_keys(d, #Table, {__VA_ARGS__});                                            \
  } while (0)

/// Key checks of the dicts the Recorder converts itself: call first thing in
/// add_loss (LossRecord, its SampleLoss rows and TokenLayout), in
/// add_optimizer_step (OptimizerStepRecord, its ParamGroups) and where RunMeta
/// is read (write_meta, finalize). Same contract as check_keys.
void check_loss_keys(const py::dict& d);
void check_optimizer_step_keys(const py::dict& d);
void check_run_meta_keys(const py::dict& d);

/// [(key, value)] -> KeyValue tables (values through str()).
std::vector<std::unique_ptr<schema::KeyValueT>> key_values(py::handle seq);

/// {step, batch_event, batch: [ids], samples: [{id, dataset_index, batch_position,
///  input, label, label_index, transforms: [{name, class_name, event, input, output,
///  input_kind, output_kind, rng_state}]}]}
std::unique_ptr<schema::SampleBatchT> sample_batch_from(const py::dict& d, int default_step);

/// {attention: [{step, module, event, sample, shape, weights, tokens, token_labels}],
///  gradcam: [{step, module, sample, target (0 predicted, 1 true), class_index, map}],
///  embeddings: [{step, module, samples, labels, vectors, positions, rows, row_labels,
///                batch_vectors, batch_size}],
///  tables: [{module, rows, labels}],
///  library_attention: [{module, kind}]}
std::unique_ptr<schema::InsightBatchT> insight_batch_from(const py::dict& d, int default_step);

}  // namespace tvis::recorder
