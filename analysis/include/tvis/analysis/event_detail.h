// event_detail.h: an event's detail, typed.
//
// The recorder writes an event's evidence as Event.detail, [KeyValue] text:
// one KeyValue per field of schema::EventDetail it gives (schema/recording.fbs
// documents each field and its text). EventDetail reads that text back into
// the typed table, generically from flatc's mini-reflection of it
// (EventDetailTypeTable(): field names and types), so the checks read
// `e.detail->dead_units()` (a flatbuffers::Optional; a string field nullptr
// when absent) and no key is spelt as a string outside the schema.
//
// Contract: a key that names no field is ignored (a newer recorder); a value
// that does not parse as its field's type is absent; of a key given twice the
// first counts. Text per type: bool "1"/"0" (or "true"/"false", "True"/"False");
// an integer decimal digits, all of the text, in the field's range; a float
// the whole text as strtod reads it (nan and inf too); a string as it is.
// No exceptions, threads or files (analysis builds for the browser too).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "tvis/schema/recording_generated.h"

namespace tvis::analysis {

class EventDetail {
 public:
  /// No field given.
  EventDetail() = default;
  /// The detail of (key, value) text pairs, as Event.detail holds them.
  explicit EventDetail(const std::vector<std::pair<std::string_view, std::string_view>>& text);
  /// The detail of an event's KeyValue list (null: none).
  explicit EventDetail(const flatbuffers::Vector<flatbuffers::Offset<schema::KeyValue>>* kvs);

  /// The typed table; never null (no field given: every field absent).
  const schema::EventDetail* get() const;
  const schema::EventDetail* operator->() const { return get(); }
  /// True when no field parsed.
  bool empty() const { return buf_.empty(); }

 private:
  std::vector<uint8_t> buf_;  // a FlatBuffer whose root is the schema::EventDetail; empty: no field
};

}  // namespace tvis::analysis
