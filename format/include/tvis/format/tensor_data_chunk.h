// tensor_data_chunk.h: builds the raw bytes of a TensorData chunk (a
// `tvis.schema.Chunk` FlatBuffer whose body is TensorData) so that the value
// bytes start 16-byte aligned inside the buffer and the buffer's size is a
// multiple of 16. The byte-shuffle filters then see whole elements in their
// planes. TensorRecord.data_offset counts from the start of `bytes`.
#pragma once

#include <cstdint>

#include "tvis/format/byte_source.h"

namespace tvis::format {

/// A finished Chunk FlatBuffer (file identifier "TVR1") holding `size` bytes
/// copied from `data`. Append it with kind TensorData and a Shuffle filter
/// matching the element size.
Bytes make_tensor_data_chunk(const uint8_t* data, uint64_t size);

}  // namespace tvis::format
