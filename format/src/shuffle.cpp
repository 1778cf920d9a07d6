#include "shuffle.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tvis::format {

namespace {

// Scalar planes for elements [first, n) of n E-byte elements.
template <size_t E>
void shuffle_scalar(const uint8_t* in, uint8_t* out, size_t first, size_t n) {
  for (size_t i = first; i < n; ++i)
    for (size_t j = 0; j < E; ++j) out[j * n + i] = in[i * E + j];
}
template <size_t E>
void unshuffle_scalar(const uint8_t* in, uint8_t* out, size_t first, size_t n) {
  for (size_t i = first; i < n; ++i)
    for (size_t j = 0; j < E; ++j) out[i * E + j] = in[j * n + i];
}

#if defined(__SSE2__)
// A block of 16 elements of E bytes sits in E registers. Number its bytes
// with log2(16 E) bits: (element bits, byte bits) as loaded from the
// interleaved layout, (byte bits, element bits) as loaded from the planes.
// One "interleave round" (unpacklo/hi of register k with register k + E/2)
// rotates that bit string left by one, so going from interleaved to planes
// takes 4 rounds (a rotation by the 4 element bits) and going back takes
// log2(E) rounds (the rest of the full turn).
template <size_t E>
inline void interleave_round(__m128i (&r)[E]) {
  __m128i t[E];
  for (size_t k = 0; k < E / 2; ++k) {
    t[2 * k] = _mm_unpacklo_epi8(r[k], r[k + E / 2]);
    t[2 * k + 1] = _mm_unpackhi_epi8(r[k], r[k + E / 2]);
  }
  for (size_t k = 0; k < E; ++k) r[k] = t[k];
}

constexpr int log2_of(size_t e) { return e == 2 ? 1 : e == 4 ? 2 : 3; }

template <size_t E>
size_t shuffle_sse2(const uint8_t* in, uint8_t* out, size_t n) {
  const size_t blocks = n / 16;
  for (size_t b = 0; b < blocks; ++b) {
    __m128i r[E];
    for (size_t k = 0; k < E; ++k) r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + b * 16 * E + 16 * k));
    for (int round = 0; round < 4; ++round) interleave_round<E>(r);
    for (size_t j = 0; j < E; ++j) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j * n + b * 16), r[j]);
  }
  return blocks * 16;
}

template <size_t E>
size_t unshuffle_sse2(const uint8_t* in, uint8_t* out, size_t n) {
  const size_t blocks = n / 16;
  for (size_t b = 0; b < blocks; ++b) {
    __m128i r[E];
    for (size_t j = 0; j < E; ++j) r[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + j * n + b * 16));
    for (int round = 0; round < log2_of(E); ++round) interleave_round<E>(r);
    for (size_t k = 0; k < E; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + b * 16 * E + 16 * k), r[k]);
  }
  return blocks * 16;
}
#endif

template <size_t E>
void shuffle_fixed(const uint8_t* in, uint8_t* out, size_t n) {
  size_t done = 0;
#if defined(__SSE2__)
  done = shuffle_sse2<E>(in, out, n);
#endif
  shuffle_scalar<E>(in, out, done, n);
}

template <size_t E>
void unshuffle_fixed(const uint8_t* in, uint8_t* out, size_t n) {
  size_t done = 0;
#if defined(__SSE2__)
  done = unshuffle_sse2<E>(in, out, n);
#endif
  unshuffle_scalar<E>(in, out, done, n);
}

}  // namespace

void shuffle_bytes(const uint8_t* in, uint8_t* out, size_t size, size_t elem) {
  if (size == 0) return;  // empty buffers may have null data()
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
  if (size == 0) return;  // empty buffers may have null data()
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
