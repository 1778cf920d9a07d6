#include "byte_range.h"

#include <cctype>

namespace tvis::serve {

namespace {

bool parse_u64(const std::string& s, uint64_t* v) {
  if (s.empty() || s.size() > 19) return false;
  *v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    *v = *v * 10 + uint64_t(c - '0');
  }
  return true;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && s[a] == ' ') ++a;
  while (b > a && s[b - 1] == ' ') --b;
  return s.substr(a, b - a);
}

}  // namespace

ByteRange parse_range_header(const std::string& value) {
  ByteRange r;
  if (value.empty()) return r;
  r.kind = ByteRange::Kind::Invalid;
  const std::string v = trim(value);
  if (v.rfind("bytes=", 0) != 0) return r;
  std::string spec = v.substr(6);
  const size_t comma = spec.find(',');
  if (comma != std::string::npos) spec = spec.substr(0, comma);
  spec = trim(spec);
  const size_t dash = spec.find('-');
  if (dash == std::string::npos) return r;
  const std::string a = spec.substr(0, dash), b = spec.substr(dash + 1);
  if (a.empty()) {
    if (!parse_u64(b, &r.last) || r.last == 0) return r;
    r.kind = ByteRange::Kind::Suffix;
  } else if (b.empty()) {
    if (!parse_u64(a, &r.first)) return r;
    r.kind = ByteRange::Kind::From;
  } else {
    if (!parse_u64(a, &r.first) || !parse_u64(b, &r.last) || r.last < r.first) return r;
    r.kind = ByteRange::Kind::FromTo;
  }
  return r;
}

bool resolve_range(const ByteRange& r, uint64_t size, uint64_t* offset, uint64_t* length) {
  switch (r.kind) {
    case ByteRange::Kind::None:
      *offset = 0;
      *length = size;
      return true;
    case ByteRange::Kind::FromTo:
      if (r.first >= size) return false;
      *offset = r.first;
      *length = (r.last < size ? r.last : size - 1) - r.first + 1;
      return true;
    case ByteRange::Kind::From:
      if (r.first >= size) return false;
      *offset = r.first;
      *length = size - r.first;
      return true;
    case ByteRange::Kind::Suffix:
      if (size == 0) return false;
      *length = r.last < size ? r.last : size;
      *offset = size - *length;
      return true;
    case ByteRange::Kind::Invalid: return false;
  }
  return false;
}

}  // namespace tvis::serve
