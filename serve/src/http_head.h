// http_head.h: one HTTP/1.x request head (RFC 9112 §2-§6), parsed from the
// bytes received so far, within fixed limits. The server (http_server.h)
// calls it on every read; a head that has not ended yet is Incomplete until
// it passes max_head_bytes, then TooLarge: no head grows past the limit and
// nothing of the body is read before the head is judged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tvis::serve {

struct HeadLimits {
  size_t max_head_bytes = 16 * 1024;  // request line + headers + the empty line
  size_t max_headers = 64;
};

/// Why a head was refused; each maps to one status (head_error_status).
enum class HeadError {
  None,            // a complete, valid head
  Incomplete,      // no end yet, still within max_head_bytes: read more
  TooLarge,        // 431: the head passed max_head_bytes
  TooManyHeaders,  // 431: more than max_headers fields
  Malformed,       // 400: request line, field syntax, control bytes, bad percent escape
  BadVersion,      // 505: not HTTP/1.0 or HTTP/1.1
  BadLength,       // 400: Content-Length not one decimal number, or given twice differently
  Unsupported,     // 501: Transfer-Encoding (no chunked bodies: the viewer never sends one)
  RepeatedHost,    // 400: more than one Host field (RFC 9112 §3.2: which one names the server is ambiguous)
};

int head_error_status(HeadError e);
const char* head_error_text(HeadError e);

struct RequestHead {
  std::string method;  // as sent ("GET")
  std::string target;  // as sent ("/run/a%20b/run.tvis?token=...")
  std::string path;    // the target's path, percent-decoded
  std::map<std::string, std::string> params;  // the query, percent-decoded ('+' is a space); first of a repeated name
  int minor_version = 1;  // HTTP/1.<minor>
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, values trimmed
  uint64_t content_length = 0;
  bool keep_alive = true;  // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "keep-alive"

  /// The first field of that (lower-case) name, "" when absent.
  std::string header(const std::string& lower_name) const;
  bool has_header(const std::string& lower_name) const;
};

struct HeadParse {
  HeadError error = HeadError::Incomplete;
  size_t consumed = 0;  // bytes of the head, empty line included (when None)
};

/// Parses the head at the start of [data, data+size).
HeadParse parse_request_head(const char* data, size_t size, const HeadLimits& limits, RequestHead* out);

/// Percent-decoding; false on a bad escape. `plus_is_space` for query parts.
bool percent_decode(const std::string& in, bool plus_is_space, std::string* out);

}  // namespace tvis::serve
