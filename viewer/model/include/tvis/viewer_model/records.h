// records.h: the recorded types the model reads (schema::Event,
// schema::TensorRecord, schema::Sample, ...), generated from
// schema/recording.fbs. Within viewer/, this is the only include of the
// generated header: pages get the types through the model.
//
// The recorded enums are plain values, the vocabulary the whole viewer
// speaks (a phase, a call's kind, a tensor's role, what of it was kept, its
// dtype, what it was in Python), so the model names them as its own.
#pragma once

#include "tvis/schema/recording_generated.h"

namespace tvis::viewer {

using Phase = schema::Phase;
using EventKind = schema::EventKind;
using TensorRole = schema::TensorRole;
using ValuesKept = schema::ValuesKept;
using DType = schema::DType;
using ValueKind = schema::ValueKind;

/// The schema's name of a value kind ("Tensor", "PILImage", ...).
inline const char* value_kind_name(ValueKind k) { return schema::EnumNameValueKind(k); }

}  // namespace tvis::viewer
