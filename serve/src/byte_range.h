// byte_range.h: one HTTP Range header (RFC 9110 §14.1.2), as the viewer and
// curl send it: "bytes=a-b", "bytes=a-", "bytes=-n". Several ranges are
// answered as the first one (the viewer never asks for more).
#pragma once

#include <cstdint>
#include <string>

namespace tvis::serve {

struct ByteRange {
  enum class Kind { None, FromTo, From, Suffix, Invalid } kind = Kind::None;
  uint64_t first = 0, last = 0;  // FromTo: [first, last]; From: first; Suffix: last = n
};

ByteRange parse_range_header(const std::string& value);

/// [offset, offset+length) of a file of `size` bytes; false when unsatisfiable.
bool resolve_range(const ByteRange& r, uint64_t size, uint64_t* offset, uint64_t* length);

}  // namespace tvis::serve
