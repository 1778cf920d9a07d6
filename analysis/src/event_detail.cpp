// event_detail.cpp: Event.detail text -> schema::EventDetail (event_detail.h),
// generically over the table's mini-reflection: field i of the type table is
// the table's field at vtable offset FieldIndexToOffset(i).
#include "tvis/analysis/event_detail.h"

#include <charconv>
#include <cstdlib>
#include <limits>
#include <string>

namespace tvis::analysis {

namespace {

struct Parsed {
  bool set = false;
  int64_t i = 0;   // signed integers and bools
  uint64_t u = 0;  // unsigned integers
  double d = 0;    // floats
  std::string_view s;
};

bool parse_bool(std::string_view t, Parsed& p) {
  if (t == "1" || t == "true" || t == "True") return p.i = 1, true;
  if (t == "0" || t == "false" || t == "False") return p.i = 0, true;
  return false;
}

template <typename T>
bool parse_integer(std::string_view t, Parsed& p) {
  if (t.empty()) return false;
  if constexpr (std::is_signed_v<T>) {
    int64_t v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return false;
    if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
    p.i = v;
  } else {
    uint64_t v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return false;
    if (v > std::numeric_limits<T>::max()) return false;
    p.u = v;
  }
  return true;
}

bool parse_real(std::string_view t, Parsed& p) {
  if (t.empty()) return false;
  const std::string z(t);  // strtod reads a terminated string
  char* end = nullptr;
  p.d = std::strtod(z.c_str(), &end);
  return end == z.c_str() + z.size();
}

bool parse(flatbuffers::ElementaryType type, std::string_view t, Parsed& p) {
  switch (type) {
    case flatbuffers::ET_BOOL: return parse_bool(t, p);
    case flatbuffers::ET_CHAR: return parse_integer<int8_t>(t, p);
    case flatbuffers::ET_UCHAR: return parse_integer<uint8_t>(t, p);
    case flatbuffers::ET_SHORT: return parse_integer<int16_t>(t, p);
    case flatbuffers::ET_USHORT: return parse_integer<uint16_t>(t, p);
    case flatbuffers::ET_INT: return parse_integer<int32_t>(t, p);
    case flatbuffers::ET_UINT: return parse_integer<uint32_t>(t, p);
    case flatbuffers::ET_LONG: return parse_integer<int64_t>(t, p);
    case flatbuffers::ET_ULONG: return parse_integer<uint64_t>(t, p);
    case flatbuffers::ET_FLOAT:
    case flatbuffers::ET_DOUBLE: return parse_real(t, p);
    case flatbuffers::ET_STRING: return p.s = t, true;
    default: return false;  // a type no detail field has (union, table, vector): never read
  }
}

// Field `i` of `p` written at its vtable slot (ForceDefaults: an optional
// scalar given as 0 is present).
void add(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::ElementaryType type, size_t i, const Parsed& p) {
  const auto off = flatbuffers::FieldIndexToOffset(static_cast<flatbuffers::voffset_t>(i));
  switch (type) {
    case flatbuffers::ET_BOOL: fbb.AddElement<uint8_t>(off, p.i ? 1 : 0, 0); break;
    case flatbuffers::ET_CHAR: fbb.AddElement<int8_t>(off, static_cast<int8_t>(p.i), 0); break;
    case flatbuffers::ET_UCHAR: fbb.AddElement<uint8_t>(off, static_cast<uint8_t>(p.u), 0); break;
    case flatbuffers::ET_SHORT: fbb.AddElement<int16_t>(off, static_cast<int16_t>(p.i), 0); break;
    case flatbuffers::ET_USHORT: fbb.AddElement<uint16_t>(off, static_cast<uint16_t>(p.u), 0); break;
    case flatbuffers::ET_INT: fbb.AddElement<int32_t>(off, static_cast<int32_t>(p.i), 0); break;
    case flatbuffers::ET_UINT: fbb.AddElement<uint32_t>(off, static_cast<uint32_t>(p.u), 0); break;
    case flatbuffers::ET_LONG: fbb.AddElement<int64_t>(off, p.i, 0); break;
    case flatbuffers::ET_ULONG: fbb.AddElement<uint64_t>(off, p.u, 0); break;
    case flatbuffers::ET_FLOAT: fbb.AddElement<float>(off, static_cast<float>(p.d), 0); break;
    case flatbuffers::ET_DOUBLE: fbb.AddElement<double>(off, p.d, 0); break;
    default: break;  // strings: added by the caller (their offsets come first)
  }
}

flatbuffers::ElementaryType type_of(const flatbuffers::TypeTable* tt, size_t i) {
  const flatbuffers::TypeCode& c = tt->type_codes[i];
  // a vector field is not a detail: its text is never read
  return c.is_repeating ? flatbuffers::ET_SEQUENCE : static_cast<flatbuffers::ElementaryType>(c.base_type);
}

std::vector<uint8_t> bytes_of(flatbuffers::FlatBufferBuilder& fbb) {
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace

EventDetail::EventDetail(const std::vector<std::pair<std::string_view, std::string_view>>& text) {
  if (text.empty()) return;
  const flatbuffers::TypeTable* tt = schema::EventDetailTypeTable();
  const size_t n = tt->num_elems;
  std::vector<Parsed> given(n);
  std::vector<bool> seen(n);
  bool any = false;
  for (const auto& [key, value] : text)
    for (size_t i = 0; i < n; ++i) {
      if (key != tt->names[i]) continue;
      if (!seen[i] && parse(type_of(tt, i), value, given[i])) given[i].set = any = true;
      seen[i] = true;
      break;
    }
  if (!any) return;
  flatbuffers::FlatBufferBuilder fbb(128);
  fbb.ForceDefaults(true);
  std::vector<flatbuffers::Offset<flatbuffers::String>> strings(n);
  for (size_t i = 0; i < n; ++i)
    if (given[i].set && type_of(tt, i) == flatbuffers::ET_STRING)
      strings[i] = fbb.CreateString(given[i].s.data(), given[i].s.size());
  const flatbuffers::uoffset_t start = fbb.StartTable();
  for (size_t i = 0; i < n; ++i) {
    if (!given[i].set) continue;
    if (type_of(tt, i) == flatbuffers::ET_STRING)
      fbb.AddOffset(flatbuffers::FieldIndexToOffset(static_cast<flatbuffers::voffset_t>(i)), strings[i]);
    else
      add(fbb, type_of(tt, i), i, given[i]);
  }
  fbb.Finish(flatbuffers::Offset<schema::EventDetail>(fbb.EndTable(start)));
  buf_ = bytes_of(fbb);
}

namespace {

std::vector<std::pair<std::string_view, std::string_view>> text_of(
    const flatbuffers::Vector<flatbuffers::Offset<schema::KeyValue>>* kvs) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  if (kvs)
    for (const auto* kv : *kvs)
      if (kv->key())  // an empty value is packed as none: it reads as ""
        out.emplace_back(kv->key()->string_view(), kv->value() ? kv->value()->string_view() : std::string_view());
  return out;
}

const std::vector<uint8_t>& no_field() {
  static const std::vector<uint8_t> buf = [] {
    flatbuffers::FlatBufferBuilder fbb(32);
    fbb.Finish(flatbuffers::Offset<schema::EventDetail>(fbb.EndTable(fbb.StartTable())));
    return bytes_of(fbb);
  }();
  return buf;
}

}  // namespace

EventDetail::EventDetail(const flatbuffers::Vector<flatbuffers::Offset<schema::KeyValue>>* kvs)
    : EventDetail(text_of(kvs)) {}

const schema::EventDetail* EventDetail::get() const {
  return flatbuffers::GetRoot<schema::EventDetail>(buf_.empty() ? no_field().data() : buf_.data());
}

}  // namespace tvis::analysis
