// wide_vector_alignment: the check FlatBuffers' verifier leaves out.
//
// The verifier (flatbuffers 2.0) checks that a vector's length field is
// 4-byte aligned and that its bytes lie in the buffer, but not that the
// elements of a vector of 8-byte scalars ([long], [ulong], [double]) are
// 8-byte aligned. Every reader of a run dereferences those elements in place
// (Vector<T>::Get, range-for), so a crafted chunk with such a vector at
// 4 mod 8 would make each of them a misaligned load. A tvis writer always
// aligns them (FlatBufferBuilder pads to the element size), so a misaligned
// one is corruption, and the reader refuses the chunk before anyone reads it.
//
// Contract: call after schema::VerifyChunkBuffer succeeded on the same
// buffer. Returns the "Table.field" of the first misaligned vector, or
// nullptr when every 8-byte vector reachable from the chunk's body is
// aligned. kWideVectorFields lists every such field of the schema; the
// format tests compare it with schema/recording.fbs so a new field cannot be
// added without being checked here.
#pragma once

#include <cstdint>

#include "tvis/schema/recording_generated.h"

namespace tvis::format {

inline constexpr const char* kWideVectorFields[] = {
    "Event.inputs",      "Event.outputs",         "Event.grad_outputs", "Event.sample_grad_norms",
    "TensorRecord.shape", "SampleBatch.batch",    "TokenLayout.ignored", "AttentionRecord.shape",
    "AttentionRecord.tokens", "AttentionRecord.full", "Operand.shape", "GraphEdgeRecord.shape",
    "ParamShard.global_shape", "ParamShard.local_shape", "ParamShard.offsets",
};

const char* misaligned_wide_vector(const schema::Chunk& chunk);

}  // namespace tvis::format
