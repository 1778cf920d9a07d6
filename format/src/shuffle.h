// shuffle.h (internal): the byte-shuffle filter (container.h, ChunkFilter).
// shuffle() writes byte j of every `elem`-byte element into plane j, so the
// exponent bytes of floats sit together and compress well; unshuffle() is its
// inverse. The trailing size % elem bytes are copied unchanged after the
// planes. `out` must hold `size` bytes and must not alias `in`.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tvis::format {

void shuffle_bytes(const uint8_t* in, uint8_t* out, size_t size, size_t elem);
void unshuffle_bytes(const uint8_t* in, uint8_t* out, size_t size, size_t elem);

}  // namespace tvis::format
