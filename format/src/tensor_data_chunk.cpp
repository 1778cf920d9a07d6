#include "tvis/format/tensor_data_chunk.h"

#include "tvis/schema/recording_generated.h"

namespace tvis::format {

Bytes make_tensor_data_chunk(const uint8_t* data, uint64_t size) {
  flatbuffers::FlatBufferBuilder fbb(size_t(size) + 256);
  fbb.ForceVectorAlignment(size_t(size), 1, 16);
  auto bytes = fbb.CreateVector(data, size_t(size));
  auto body = schema::CreateTensorData(fbb, bytes);
  auto chunk = schema::CreateChunk(fbb, schema::Body::TensorData, body.Union());
  schema::FinishChunkBuffer(fbb, chunk);
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace tvis::format
