// py_records.h: schema records built from the plain dicts the Python side of
// the recorder hands over (tvis/records.py's constructors build them). The
// conversion of every table is generated from schema/recording.fbs
// (recording_from_dict.h; its contract in py_from_dict.h: unknown keys
// refused naming the key and the table, a left-out or None key the schema's
// default, wrong types and enum numbers refused). Here: what the binding's
// entry points add to it.
// Tensor ids are the ones Recorder.tensor()/tensors() returned.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tvis/schema/recording_generated.h>

#include "py_from_dict.h"

namespace tvis::recorder {

namespace py = pybind11;

/// An event's detail, Recorder.add_detail: `d` is a dict of EventDetail
/// fields (tvis.records.event_detail(...)), checked by the generated
/// conversion of EventDetail (an unknown key or a wrong type: TypeError naming
/// EventDetail.field), written as one KeyValue per given field in the text
/// schema/recording.fbs gives for EventDetail: a bool "1"/"0", an integer in
/// decimal digits, a float the shortest text that reads back the same value,
/// a string as it is. TypeError for anything but a dict.
std::vector<std::unique_ptr<schema::KeyValueT>> event_detail(py::handle d);

/// One integer field of an event's detail, as event_detail() writes it (its
/// decimal digits), for detail the recorder computes itself (dead units).
/// `field` must name an integer field of EventDetail in the schema: a name
/// the schema does not have (renamed, removed) throws std::logic_error, so
/// the native side cannot drift from the generated tables unnoticed.
std::unique_ptr<schema::KeyValueT> detail_integer(std::string_view field, int64_t value);

/// One Body member converted from its dict, with the ranges its chunk's index
/// entry holds (from_dict::span_of, then adjust()).
struct Record {
  schema::BodyUnion body;
  from_dict::RecordSpan span;
};

/// The record `table` (a Body member's name, "LossRecord") converted from
/// `d`; an int `step` left out reads as `current_step` (the recorder's), at
/// any depth. ValueError for a name that is not a Body member, or one the
/// Recorder writes itself (RunMeta, SourceFiles, EventBatch, TensorBatch,
/// TensorData), listing the names it takes.
Record record_from_dict(std::string_view table, py::handle d, int32_t current_step);

/// The Body member names record_from_dict takes, in union order.
std::vector<std::string> addable_records();

/// The run's RunConfig from its dict (generated conversion: a key left out is the schema's default).
schema::RunConfigT run_config_from(const py::dict& d);

/// RunMeta from its dict (records.run_meta): the generated conversion, less
/// the fields the Recorder fills itself (kind, phase_timings,
/// step_device_reads, config: a dict giving one is refused as an unknown
/// key); kind is Training.
schema::RunMetaT meta_from(const py::dict& d);

}  // namespace tvis::recorder
