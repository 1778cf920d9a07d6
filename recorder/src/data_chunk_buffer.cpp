#include "tvis/recorder/data_chunk_buffer.h"

#include <algorithm>
#include <cstring>

#include "tvis/format/tensor_data_chunk.h"
#include "tvis/schema/recording_generated.h"

namespace tvis::recorder {

namespace {

struct Head {
  format::Bytes bytes;  // through the vector's u32 length; empty: not in place
};

uint64_t value_start(const format::Bytes& chunk) {
  const auto* td = schema::GetChunk(chunk.data())->body_as_TensorData();
  return td && td->bytes() ? uint64_t(td->bytes()->data() - chunk.data()) : 0;
}

// make_tensor_data_chunk's head for several value counts (each residue mod
// 16 that matters): the same bytes but the length, values 16-byte aligned.
Head find_head() {
  Head h;
  const uint8_t ones[48] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                            1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  format::Bytes first;
  uint64_t start = 0;
  for (uint64_t n : {16u, 20u, 33u, 48u}) {
    format::Bytes c = format::make_tensor_data_chunk(ones, n);
    const uint64_t d = value_start(c);
    if (d < 4 || d % 16 != 0 || c.size() != d + (n + 15) / 16 * 16) return h;
    uint32_t len;
    std::memcpy(&len, c.data() + d - 4, 4);
    if (len != n) return h;
    if (first.empty()) {
      first = c;
      start = d;
    } else if (d != start || std::memcmp(c.data(), first.data(), d - 4) != 0) {
      return h;
    }
  }
  h.bytes.assign(first.begin(), first.begin() + start);
  return h;
}

const Head& head() {
  static const Head h = find_head();
  return h;
}

}  // namespace

bool DataChunkBuffer::in_place() { return !head().bytes.empty(); }

DataChunkBuffer::DataChunkBuffer(uint64_t capacity, Recycle recycle)
    : capacity_(capacity), recycle_(std::move(recycle)), head_size_(head().bytes.size()) {
  start();
}

void DataChunkBuffer::start() {
  const uint64_t want = head_size_ + capacity_ + 16;
  bytes_ = recycle_ ? recycle_(want) : format::Bytes();
  bytes_.clear();
  bytes_.reserve(want);
  bytes_.assign(head().bytes.begin(), head().bytes.end());
}

uint64_t DataChunkBuffer::append(const void* data, uint64_t size, uint64_t align) {
  const uint64_t off = (value_bytes() + align - 1) & ~(align - 1);
  const uint64_t end = head_size_ + off + size;
  if (bytes_.capacity() < end + 16) bytes_.reserve(std::max<uint64_t>(end + 16, bytes_.capacity() * 3 / 2));
  bytes_.resize(head_size_ + off);  // the alignment padding (zeros)
  const auto* p = static_cast<const uint8_t*>(data);
  bytes_.insert(bytes_.end(), p, p + size);
  return off;
}

format::Bytes DataChunkBuffer::finish() {
  const uint64_t n = value_bytes();
  format::Bytes out;
  if (head_size_ == 0) {  // not in place: the format's own builder, one more copy
    out = format::make_tensor_data_chunk(bytes_.data(), n);
  } else {
    const uint32_t len = static_cast<uint32_t>(n);
    std::memcpy(bytes_.data() + head_size_ - 4, &len, 4);
    bytes_.resize(head_size_ + (n + 15) / 16 * 16);  // zero padding
    out = std::move(bytes_);
  }
  start();
  return out;
}

}  // namespace tvis::recorder
