// py_records.h: schema records built from the plain dicts the Python side of
// the recorder hands over. One place that knows both shapes, so the hooks stay
// Python and the tables stay FlatBuffers.
//
// Contract: every key is optional; a missing or None value takes the schema's
// default. Tensor ids are the ones Recorder.tensor()/tensors() returned.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

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

/// [(key, value)] -> KeyValue tables (values through str()).
std::vector<std::unique_ptr<schema::KeyValueT>> key_values(py::handle seq);

/// {step, batch_event, batch: [ids], samples: [{id, dataset_index, batch_position,
///  input, label, label_index, transforms: [{name, class_name, event, input, output,
///  input_kind, output_kind, rng_state}]}]}
std::unique_ptr<schema::SampleBatchT> sample_batch_from(const py::dict& d, int default_step);

/// {attention: [{step, module, event, sample, shape, weights, tokens, token_labels}],
///  gradcam: [{step, module, sample, target (0 predicted, 1 true), class_index, map}],
///  embeddings: [{step, module, samples, labels, vectors}],
///  tables: [{module, rows, labels}],
///  library_attention: [{module, kind}]}
std::unique_ptr<schema::InsightBatchT> insight_batch_from(const py::dict& d, int default_step);

}  // namespace tvis::recorder
