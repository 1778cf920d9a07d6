// analysis's typed event detail (tvis/analysis/event_detail.h): Event.detail
// text read back into schema::EventDetail. Every field of the table, whatever
// its type, round-trips from its text (found through the table's
// mini-reflection, so a field added to the schema is covered without an edit
// here); absent stays absent, a value that does not parse is absent, a key no
// field has is ignored, and of a key given twice the first counts.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tvis/analysis/event_detail.h"

namespace {

namespace an = tvis::analysis;
namespace sc = tvis::schema;
using Text = std::vector<std::pair<std::string_view, std::string_view>>;

const flatbuffers::TypeTable* table() { return sc::EventDetailTypeTable(); }

flatbuffers::voffset_t slot(size_t i) { return flatbuffers::FieldIndexToOffset(static_cast<flatbuffers::voffset_t>(i)); }

flatbuffers::ElementaryType type(size_t i) {
  return static_cast<flatbuffers::ElementaryType>(table()->type_codes[i].base_type);
}

// The table read generically (flatc's generated tables derive from it privately).
const flatbuffers::Table* raw(const an::EventDetail& d) { return reinterpret_cast<const flatbuffers::Table*>(d.get()); }

// Whether field i of `d` is present (generically: its vtable slot is set).
bool present(const an::EventDetail& d, size_t i) { return raw(d)->CheckField(slot(i)); }

}  // namespace

TEST_CASE("every EventDetail field is a bool, an integer, a float or a string", "[analysis][event_detail]") {
  REQUIRE(table()->num_elems > 20);
  for (size_t i = 0; i < table()->num_elems; ++i) {
    INFO(table()->names[i]);
    CHECK(!table()->type_codes[i].is_repeating);
    const auto t = type(i);
    CHECK((t == flatbuffers::ET_BOOL || t == flatbuffers::ET_LONG || t == flatbuffers::ET_DOUBLE ||
           t == flatbuffers::ET_STRING));
  }
}

TEST_CASE("every field round-trips from its text to its type", "[analysis][event_detail]") {
  for (size_t i = 0; i < table()->num_elems; ++i) {
    const std::string_view key = table()->names[i];
    INFO(key);
    switch (type(i)) {
      case flatbuffers::ET_BOOL: {
        const an::EventDetail yes(Text{{key, "1"}}), no(Text{{key, "0"}});
        REQUIRE(present(yes, i));
        REQUIRE(present(no, i));  // false is given, not absent
        CHECK(raw(yes)->GetField<uint8_t>(slot(i), 0) == 1);
        CHECK(raw(no)->GetField<uint8_t>(slot(i), 1) == 0);
        break;
      }
      case flatbuffers::ET_LONG: {
        const an::EventDetail big(Text{{key, "-9007199254740993"}}), zero(Text{{key, "0"}});
        REQUIRE(present(big, i));
        REQUIRE(present(zero, i));  // 0 is given, not absent
        CHECK(raw(big)->GetField<int64_t>(slot(i), 0) == -9007199254740993LL);
        CHECK(raw(zero)->GetField<int64_t>(slot(i), 1) == 0);
        break;
      }
      case flatbuffers::ET_DOUBLE: {
        const an::EventDetail d(Text{{key, "1234.57"}}), nan(Text{{key, "nan"}}), inf(Text{{key, "-inf"}});
        REQUIRE(present(d, i));
        CHECK(raw(d)->GetField<double>(slot(i), 0) == 1234.57);
        CHECK(std::isnan(raw(nan)->GetField<double>(slot(i), 0)));
        CHECK(raw(inf)->GetField<double>(slot(i), 0) == -INFINITY);
        break;
      }
      case flatbuffers::ET_STRING: {
        const an::EventDetail s(Text{{key, "layer1.0.weight head.bias"}}), empty(Text{{key, ""}});
        REQUIRE(present(s, i));
        CHECK(raw(s)->GetPointer<const flatbuffers::String*>(slot(i))->str() == "layer1.0.weight head.bias");
        REQUIRE(present(empty, i));
        CHECK(raw(empty)->GetPointer<const flatbuffers::String*>(slot(i))->str().empty());
        break;
      }
      default: FAIL("a field of a type the detail text has no spelling for");
    }
    // given alone: every other field stays absent
    const an::EventDetail one(Text{{key, type(i) == flatbuffers::ET_STRING ? "x" : "1"}});
    for (size_t j = 0; j < table()->num_elems; ++j)
      if (j != i) CHECK(!present(one, j));
  }
}

TEST_CASE("the named accessors read the typed values", "[analysis][event_detail]") {
  const an::EventDetail d(Text{{"dead_units", "3"}, {"units", "6"}, {"unit_samples", "72"}, {"model_training", "0"},
                               {"grads_carried_norm", "0.000123457"}, {"grads_carried_param", "fc.weight"},
                               {"ignore_index", "-100"}, {"raised", "1"}});
  CHECK(d->dead_units() == 3);
  CHECK(d->units() == 6);
  CHECK(d->unit_samples() == 72);
  REQUIRE(d->model_training().has_value());
  CHECK(*d->model_training() == false);
  CHECK(d->grads_carried_norm() == 0.000123457);
  REQUIRE(d->grads_carried_param());
  CHECK(d->grads_carried_param()->str() == "fc.weight");
  CHECK(d->ignore_index() == -100);
  CHECK(d->raised() == true);
  CHECK(!d->training().has_value());
  CHECK(d->rng() == nullptr);
}

TEST_CASE("absent stays absent", "[analysis][event_detail]") {
  for (const an::EventDetail& d : {an::EventDetail(), an::EventDetail(Text{}), an::EventDetail(nullptr)}) {
    CHECK(d.empty());
    for (size_t i = 0; i < table()->num_elems; ++i) CHECK(!present(d, i));
    CHECK(!d->dead_units().has_value());
    CHECK(!d->model_training().has_value());
    CHECK(!d->grads_carried_norm().has_value());
    CHECK(d->grads_unoptimized_names() == nullptr);
  }
}

TEST_CASE("a value that does not parse as its type is absent", "[analysis][event_detail]") {
  for (const char* v : {"", "12abc", "1.5", "3.0", " 3", "+", "99999999999999999999", "nan", "0x10"}) {
    INFO(v);
    const an::EventDetail d(Text{{"dead_units", v}, {"units", "6"}});
    CHECK(!d->dead_units().has_value());
    CHECK(d->units() == 6);  // the others given still read
  }
  for (const char* v : {"", "yes", "2", "-1", "on", "1.0"}) {
    INFO(v);
    CHECK(!an::EventDetail(Text{{"training", v}})->training().has_value());
  }
  for (const char* v : {"", "abc", "1.5x", "1,5"}) {
    INFO(v);
    CHECK(!an::EventDetail(Text{{"grads_carried_norm", v}})->grads_carried_norm().has_value());
  }
  CHECK(an::EventDetail(Text{{"units", "garbage"}}).empty());
}

TEST_CASE("keys no field has are ignored; of a key given twice the first counts", "[analysis][event_detail]") {
  const an::EventDetail d(Text{{"dead_unit", "3"}, {"from_a_newer_recorder", "1"}, {"units", "4"}});
  CHECK(!d->dead_units().has_value());
  CHECK(d->units() == 4);
  CHECK(an::EventDetail(Text{{"no_such_key", "1"}}).empty());
  CHECK(an::EventDetail(Text{{"units", "4"}, {"units", "5"}})->units() == 4);
  CHECK(!an::EventDetail(Text{{"units", "x"}, {"units", "5"}})->units().has_value());  // the first, unparsable
}

TEST_CASE("an event's KeyValue list reads as its text pairs", "[analysis][event_detail]") {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<sc::KeyValue>> kvs{sc::CreateKeyValue(b, b.CreateString("grads_unoptimized"),
                                                                        b.CreateString("2")),
                                                     sc::CreateKeyValue(b, b.CreateString("grads_unoptimized_names"),
                                                                        b.CreateString("head.weight head.bias")),
                                                     sc::CreateKeyValue(b, b.CreateString("rng"))};  // "": no value
  const auto detail = b.CreateVector(kvs);
  sc::EventBuilder eb(b);
  eb.add_detail(detail);
  const auto event = eb.Finish();
  b.Finish(sc::CreateEventBatch(b, b.CreateVector(std::vector<flatbuffers::Offset<sc::Event>>{event})));
  const auto* batch = flatbuffers::GetRoot<sc::EventBatch>(b.GetBufferPointer());
  const an::EventDetail d(batch->events()->Get(0)->detail());
  CHECK(d->grads_unoptimized() == 2);
  REQUIRE(d->grads_unoptimized_names());
  CHECK(d->grads_unoptimized_names()->str() == "head.weight head.bias");
  REQUIRE(d->rng());
  CHECK(d->rng()->str().empty());
}
