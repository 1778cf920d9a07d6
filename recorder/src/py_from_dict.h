// py_from_dict.h: the hand-written half of the binding's dict -> table
// conversions. The other half is generated from schema/recording.fbs at build
// time (schema_gen --cpp-converters: tvis/schema/recording_from_dict.h, one
// `fill` specialisation per table, span_of per Body member, body_from_dict);
// nothing per table is written here except adjust()'s real extra semantics.
//
// Contract of every conversion (a record is a Python dict, as tvis.records'
// constructors build it):
//   - a key that is not a field of the table is a ValueError naming the key,
//     the table and its fields ("tvis: LossRecord record has no key 'foo'
//     (its keys: step, event, ...)"), so a misspelt key never records a
//     default silently; a key that is not a str likewise;
//   - a key left out or None reads as the schema's default (the object API's
//     default member values), except an int `step` field when Context::step
//     is set (the recorder's current step);
//   - a sub-table is a dict of its fields or a tuple/list of them in
//     declaration order (KeyValue pairs (key, value), ParamRecord rows
//     (name, weight, grad, update[, after])), shorter tuples leaving the rest
//     at their defaults; a vector is any sequence but a str;
//   - a value of the wrong type is a TypeError naming table.field and the
//     type it takes (a number for a string, a float for an int, a str for a
//     number, ...); an enum is given as its number, and a number that is no
//     member of the enum is a ValueError listing the members.
// Everything here runs with the GIL held.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <tvis/schema/recording_generated.h>

namespace tvis::recorder::from_dict {

namespace py = pybind11;

/// What the conversion needs beyond the dict: the value a left-out int `step`
/// field reads as (at any depth; unset: the schema's default).
struct Context {
  std::optional<int32_t> step;
};

/// The chunk index entry's ranges of a Body member (container.h ChunkInfo).
struct RecordSpan {
  int32_t step_first = -1, step_last = -1;
  uint64_t event_first = UINT64_MAX, event_last = UINT64_MAX;
  void cover(int32_t s) {
    if (!covered_ || s < step_first) step_first = s;
    if (!covered_ || s > step_last) step_last = s;
    covered_ = true;
  }

 private:
  bool covered_ = false;
};

/// One record's fields as given: a dict (every key checked against `keys`)
/// or a tuple/list (positional, at most `n`). f[i] is the i-th field's value,
/// or a null handle when it is left out or None.
class Fields {
 public:
  Fields(py::handle h, const char* table, const std::string_view* keys, size_t n);
  py::handle operator[](size_t i) const { return i < values_.size() ? values_[i] : py::handle(); }

 private:
  std::vector<py::handle> values_;  // borrowed from the record, which outlives this
};

/// A scalar field's value: T's Python type (an int for integers, a float or
/// int for floats, a bool or int for bools), else TypeError naming table.field.
template <typename T>
T scalar(py::handle v, const char* table, const char* field);
std::string string(py::handle v, const char* table, const char* field);
template <typename T>
std::vector<T> scalars(py::handle v, const char* table, const char* field);
std::vector<std::string> strings(py::handle v, const char* table, const char* field);

/// An enum field's value from its number; a number no member has is a
/// ValueError listing the members (names/values as flatc generates them).
int64_t enum_number(py::handle v, const char* table, const char* field, const char* enum_name, const int64_t* values,
                    const char* const* names, size_t n);

template <typename E, size_t N>
E enumerated(py::handle v, const char* table, const char* field, const char* enum_name, const E (&values)[N],
             const char* const* names) {
  int64_t numbers[N];
  for (size_t i = 0; i < N; ++i) numbers[i] = static_cast<int64_t>(values[i]);
  return static_cast<E>(enum_number(v, table, field, enum_name, numbers, names, N));
}

template <typename E, size_t N>
std::vector<E> enums(py::handle v, const char* table, const char* field, const char* enum_name,
                     const E (&values)[N], const char* const* names);

/// Fills `out` from the record `h` (generated per table: recording_from_dict.h).
template <typename T>
void fill(T& out, py::handle h, const Context& cx);

/// TypeError "tvis: table.field takes <takes>, not <type> (<repr>)".
[[noreturn]] void wrong_type(py::handle v, const char* table, const char* field, const char* takes);

/// A sub-table (or a Body member's record): a new T filled from `h`.
/// `parent`/`field` name where it sits, for errors (nullptr at the top).
template <typename T>
std::unique_ptr<T> table(py::handle h, const Context& cx, const char* parent, const char* field) {
  if (parent && field && !PyDict_Check(h.ptr()) && !PyTuple_Check(h.ptr()) && !PyList_Check(h.ptr()))
    wrong_type(h, parent, field, "a record (a dict of its fields, or a tuple of them in order)");
  auto out = std::make_unique<T>();
  fill(*out, h, cx);
  return out;
}

/// A vector of sub-tables: any sequence of records (not a str or a dict).
void check_sequence(py::handle v, const char* table, const char* field);

template <typename T>
std::vector<std::unique_ptr<T>> tables(py::handle v, const Context& cx, const char* parent, const char* field) {
  check_sequence(v, parent, field);
  std::vector<std::unique_ptr<T>> out;
  for (py::handle x : v) out.push_back(table<T>(x, cx, parent, field));
  return out;
}

/// The record kinds' semantics beyond the schema, applied after conversion
/// wherever a Body member arrives (PyRecorder::add_record and the named
/// methods alike). Default: none.
template <typename T>
void adjust(T&, RecordSpan&) {}
/// A SampleBatch: each sample's step is the batch's, and the chunk's event
/// range is the batch's DataFetch event (batch_event).
void adjust(schema::SampleBatchT& r, RecordSpan& span);

// ---- definitions of the templates above ----------------------------------

template <typename T>
const char* python_type_name() {
  if constexpr (std::is_same_v<T, bool>) return "a bool";
  else if constexpr (std::is_floating_point_v<T>) return "a float";
  else if constexpr (std::is_same_v<T, int8_t>) return "an int (int8)";
  else if constexpr (std::is_same_v<T, uint8_t>) return "an int (uint8)";
  else if constexpr (std::is_same_v<T, int16_t>) return "an int (int16)";
  else if constexpr (std::is_same_v<T, uint16_t>) return "an int (uint16)";
  else if constexpr (std::is_same_v<T, int32_t>) return "an int (int32)";
  else if constexpr (std::is_same_v<T, uint32_t>) return "an int (uint32)";
  else if constexpr (std::is_same_v<T, int64_t>) return "an int (int64)";
  else return "an int (uint64)";
}

template <typename T>
T scalar(py::handle v, const char* table, const char* field) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!PyBool_Check(v.ptr()) && !PyLong_Check(v.ptr())) wrong_type(v, table, field, "a bool");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!PyFloat_Check(v.ptr()) && !PyLong_Check(v.ptr())) wrong_type(v, table, field, "a float");
  } else {
    if (PyFloat_Check(v.ptr()) || PyUnicode_Check(v.ptr()) || PyBytes_Check(v.ptr()))
      wrong_type(v, table, field, python_type_name<T>());
  }
  try {
    return v.cast<T>();
  } catch (const py::cast_error&) {
    wrong_type(v, table, field, python_type_name<T>());  // out of T's range, or not a number
  }
}

template <typename T>
std::vector<T> scalars(py::handle v, const char* table, const char* field) {
  check_sequence(v, table, field);
  std::vector<T> out;
  for (py::handle x : v) out.push_back(scalar<T>(x, table, field));
  return out;
}

template <typename E, size_t N>
std::vector<E> enums(py::handle v, const char* table, const char* field, const char* enum_name,
                     const E (&values)[N], const char* const* names) {
  check_sequence(v, table, field);
  std::vector<E> out;
  for (py::handle x : v) out.push_back(enumerated(x, table, field, enum_name, values, names));
  return out;
}

}  // namespace tvis::recorder::from_dict
