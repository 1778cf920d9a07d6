#include "http_head.h"

#include <cstring>

namespace tvis::serve {

namespace {

bool is_tchar(unsigned char c) {  // RFC 9110 §5.6.2 token characters
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != 0;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return s;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) --b;
  return s.substr(a, b - a);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool has_token(const std::string& list, const std::string& token) {  // "keep-alive, Upgrade" contains "keep-alive"
  size_t at = 0;
  const std::string l = lower(list);
  while (at <= l.size()) {
    size_t end = l.find(',', at);
    if (end == std::string::npos) end = l.size();
    if (trim(l.substr(at, end - at)) == token) return true;
    at = end + 1;
  }
  return false;
}

bool parse_query(const std::string& query, std::map<std::string, std::string>* params) {
  size_t at = 0;
  while (at < query.size()) {
    size_t end = query.find('&', at);
    if (end == std::string::npos) end = query.size();
    const std::string part = query.substr(at, end - at);
    at = end + 1;
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    std::string k, v;
    if (!percent_decode(part.substr(0, eq), true, &k)) return false;
    if (eq != std::string::npos && !percent_decode(part.substr(eq + 1), true, &v)) return false;
    params->emplace(std::move(k), std::move(v));  // the first of a repeated name wins
  }
  return true;
}

}  // namespace

int head_error_status(HeadError e) {
  switch (e) {
    case HeadError::None: return 200;
    case HeadError::Incomplete: return 408;  // only when a deadline passes with the head unfinished
    case HeadError::TooLarge:
    case HeadError::TooManyHeaders: return 431;
    case HeadError::Malformed:
    case HeadError::BadLength:
    case HeadError::RepeatedHost: return 400;
    case HeadError::BadVersion: return 505;
    case HeadError::Unsupported: return 501;
  }
  return 400;
}

const char* head_error_text(HeadError e) {
  switch (e) {
    case HeadError::None: return "ok";
    case HeadError::Incomplete: return "the request head did not arrive in time";
    case HeadError::TooLarge: return "the request head is too large";
    case HeadError::TooManyHeaders: return "the request has too many header fields";
    case HeadError::Malformed: return "malformed request head";
    case HeadError::BadVersion: return "only HTTP/1.0 and HTTP/1.1 are served";
    case HeadError::BadLength: return "bad Content-Length";
    case HeadError::Unsupported: return "Transfer-Encoding is not supported";
    case HeadError::RepeatedHost: return "more than one Host header field";
  }
  return "bad request";
}

std::string RequestHead::header(const std::string& lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return "";
}

bool RequestHead::has_header(const std::string& lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return true;
  return false;
}

bool percent_decode(const std::string& in, bool plus_is_space, std::string* out) {
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      const int hi = hex_value(in[i + 1]), lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out->push_back(char(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out->push_back(' ');
    } else {
      out->push_back(c);
    }
  }
  return true;
}

HeadParse parse_request_head(const char* data, size_t size, const HeadLimits& limits, RequestHead* out) {
  HeadParse r;
  // The end of the head: the first empty line (CRLF CRLF, or bare LF LF as RFC 9112 §2.2 allows).
  const size_t window = size < limits.max_head_bytes ? size : limits.max_head_bytes;
  size_t end = std::string::npos;
  for (size_t i = 0; i < window; ++i) {
    if (data[i] != '\n') continue;
    if (i + 1 < window && data[i + 1] == '\n') {
      end = i + 2;
      break;
    }
    if (i + 2 < window && data[i + 1] == '\r' && data[i + 2] == '\n') {
      end = i + 3;
      break;
    }
  }
  if (end == std::string::npos) {
    r.error = size >= limits.max_head_bytes ? HeadError::TooLarge : HeadError::Incomplete;
    return r;
  }
  *out = RequestHead{};
  // Split into lines (LF, an optional CR before it dropped).
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < end) {
    size_t nl = at;
    while (nl < end && data[nl] != '\n') ++nl;
    std::string line(data + at, nl - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    at = nl + 1;
    if (line.empty()) break;  // the end of the head
    for (unsigned char c : line)
      if ((c < 0x20 && c != '\t') || c == 0x7f) return r.error = HeadError::Malformed, r;
    lines.push_back(std::move(line));
  }
  if (lines.empty()) return r.error = HeadError::Malformed, r;
  if (lines.size() - 1 > limits.max_headers) return r.error = HeadError::TooManyHeaders, r;

  // Request line: METHOD SP target SP HTTP/1.x
  const std::string& rl = lines[0];
  const size_t sp1 = rl.find(' ');
  const size_t sp2 = sp1 == std::string::npos ? std::string::npos : rl.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos || rl.find(' ', sp2 + 1) != std::string::npos)
    return r.error = HeadError::Malformed, r;
  out->method = rl.substr(0, sp1);
  out->target = rl.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string version = rl.substr(sp2 + 1);
  if (out->method.empty()) return r.error = HeadError::Malformed, r;
  for (unsigned char c : out->method)
    if (!is_tchar(c)) return r.error = HeadError::Malformed, r;
  if (out->target.empty() || out->target[0] != '/') return r.error = HeadError::Malformed, r;
  if (version.size() != 8 || version.compare(0, 7, "HTTP/1.") != 0) {
    const bool http_like = version.rfind("HTTP/", 0) == 0;
    return r.error = http_like ? HeadError::BadVersion : HeadError::Malformed, r;
  }
  if (version[7] != '0' && version[7] != '1') return r.error = HeadError::BadVersion, r;
  out->minor_version = version[7] - '0';
  const size_t q = out->target.find('?');
  if (!percent_decode(out->target.substr(0, q), false, &out->path)) return r.error = HeadError::Malformed, r;
  if (q != std::string::npos && !parse_query(out->target.substr(q + 1), &out->params))
    return r.error = HeadError::Malformed, r;

  bool have_length = false;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) return r.error = HeadError::Malformed, r;
    std::string name = line.substr(0, colon);
    for (unsigned char c : name)
      if (!is_tchar(c)) return r.error = HeadError::Malformed, r;  // also refuses "Name :" (RFC 9112 §5.1)
    name = lower(name);
    std::string value = trim(line.substr(colon + 1));
    if (name == "content-length") {
      if (value.empty() || value.size() > 15) return r.error = HeadError::BadLength, r;
      uint64_t n = 0;
      for (char c : value) {
        if (c < '0' || c > '9') return r.error = HeadError::BadLength, r;
        n = n * 10 + uint64_t(c - '0');
      }
      if (have_length && n != out->content_length) return r.error = HeadError::BadLength, r;
      have_length = true;
      out->content_length = n;
    } else if (name == "transfer-encoding") {
      return r.error = HeadError::Unsupported, r;
    } else if (name == "host" && out->has_header("host")) {
      return r.error = HeadError::RepeatedHost, r;
    }
    out->headers.emplace_back(std::move(name), std::move(value));
  }
  const std::string connection = out->header("connection");
  out->keep_alive = out->minor_version == 1 ? !has_token(connection, "close") : has_token(connection, "keep-alive");
  r.error = HeadError::None;
  r.consumed = end;
  return r;
}

}  // namespace tvis::serve
