// libFuzzer target: tvis open's request-head parser (serve/src/http_head.h)
// and the Range header of the heads it accepts (byte_range.h), as a local
// client can send them. Checks the parser's own promises: a head is never
// judged on more than max_head_bytes, what it consumed lies inside the
// input and ends with an empty line, and a resolved range lies in the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "byte_range.h"
#include "http_head.h"

using namespace tvis::serve;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  HeadLimits limits;
  limits.max_head_bytes = 4096;
  limits.max_headers = 16;
  RequestHead head;
  const HeadParse p = parse_request_head(reinterpret_cast<const char*>(data), size, limits, &head);
  if (p.error == HeadError::Incomplete && size >= limits.max_head_bytes) std::abort();
  if (p.error != HeadError::None) {
    (void)head_error_status(p.error);
    return 0;
  }
  if (p.consumed > size || p.consumed > limits.max_head_bytes || p.consumed < 2 || data[p.consumed - 1] != '\n') std::abort();
  if (head.headers.size() > limits.max_headers) std::abort();
  const ByteRange r = parse_range_header(head.header("range"));
  for (uint64_t file_size : {uint64_t(0), uint64_t(1), uint64_t(1000), ~uint64_t(0)}) {
    uint64_t offset = 0, length = 0;
    if (resolve_range(r, file_size, &offset, &length) && (offset > file_size || length > file_size - offset)) std::abort();
  }
  return 0;
}
