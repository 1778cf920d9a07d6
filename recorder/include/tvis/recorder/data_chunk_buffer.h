// data_chunk_buffer.h: a TensorData chunk filled in place, so tensor values
// are copied once (tensor -> the chunk's bytes) on their way to the writer.
//
// The bytes are a finished `tvis.schema.Chunk` FlatBuffer whose body is
// TensorData, byte for byte what format::make_tensor_data_chunk() gives for
// the same values: a fixed head (root offset, file identifier, tables, the
// vector's u32 length), the values starting 16-byte aligned, zero padding to
// a multiple of 16. The head is taken once from make_tensor_data_chunk()
// itself and checked to be independent of the value count; if it is not
// (another FlatBuffers version), finish() falls back to copying through
// make_tensor_data_chunk(), so the output is always that function's.
//
// Value offsets count from the first value byte (TensorRecord.data_offset).
#pragma once

#include <cstdint>
#include <functional>

#include "tvis/format/byte_source.h"

namespace tvis::recorder {

class DataChunkBuffer {
 public:
  /// Gives a spent buffer of at least the given capacity back for reuse
  /// (RunWriter::reuse_buffer), or an empty one.
  using Recycle = std::function<format::Bytes(uint64_t min_capacity)>;

  /// `capacity`: value bytes reserved up front for each chunk; each new chunk
  /// starts from `recycle`'s buffer when it has one (warm pages, no faults).
  explicit DataChunkBuffer(uint64_t capacity, Recycle recycle = nullptr);

  /// Copies `size` value bytes in at an offset aligned to `align` (a power of
  /// two <= 16, zero padding before them); returns that offset.
  uint64_t append(const void* data, uint64_t size, uint64_t align);
  uint64_t value_bytes() const { return bytes_.size() - head_size_; }
  /// The value bytes from `offset` (an append()'s) on: valid until the next append() or finish().
  const uint8_t* values_at(uint64_t offset) const { return bytes_.data() + head_size_ + offset; }
  bool empty() const { return value_bytes() == 0; }

  /// The finished chunk; the buffer starts a new one.
  format::Bytes finish();

  /// True when chunks are built in place (the head check passed).
  static bool in_place();

 private:
  void start();
  uint64_t capacity_;
  Recycle recycle_;
  uint64_t head_size_;
  format::Bytes bytes_;
};

}  // namespace tvis::recorder
