#include "shuffle.h"

#include <cstring>

namespace tvis::format {

namespace {
// Fixed element sizes let the compiler unroll the inner loop.
template <size_t E>
void shuffle_fixed(const uint8_t* in, uint8_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < E; ++j) out[j * n + i] = in[i * E + j];
}
template <size_t E>
void unshuffle_fixed(const uint8_t* in, uint8_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < E; ++j) out[i * E + j] = in[j * n + i];
}
}  // namespace

void shuffle_bytes(const uint8_t* in, uint8_t* out, size_t size, size_t elem) {
  const size_t n = elem ? size / elem : 0;
  switch (elem) {
    case 2: shuffle_fixed<2>(in, out, n); break;
    case 4: shuffle_fixed<4>(in, out, n); break;
    case 8: shuffle_fixed<8>(in, out, n); break;
    default: std::memcpy(out, in, size); return;
  }
  std::memcpy(out + n * elem, in + n * elem, size - n * elem);
}

void unshuffle_bytes(const uint8_t* in, uint8_t* out, size_t size, size_t elem) {
  const size_t n = elem ? size / elem : 0;
  switch (elem) {
    case 2: unshuffle_fixed<2>(in, out, n); break;
    case 4: unshuffle_fixed<4>(in, out, n); break;
    case 8: unshuffle_fixed<8>(in, out, n); break;
    default: std::memcpy(out, in, size); return;
  }
  std::memcpy(out + n * elem, in + n * elem, size - n * elem);
}

}  // namespace tvis::format
