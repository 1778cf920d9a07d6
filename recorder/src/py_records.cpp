// py_records.cpp: the binding's records from dicts (see py_records.h), and
// the hand-written half of the generated conversions (py_from_dict.h).
#include "py_records.h"

#include <charconv>
#include <stdexcept>
#include <string_view>

#include <tvis/schema/recording_from_dict.h>

namespace tvis::recorder {

namespace from_dict {

namespace {

std::string type_name(py::handle v) { return Py_TYPE(v.ptr())->tp_name; }

std::string joined(const std::string_view* keys, size_t n) {
  std::string names;
  for (size_t i = 0; i < n; ++i) names += (i ? ", " : "") + std::string(keys[i]);
  return names;
}

}  // namespace

Fields::Fields(py::handle h, const char* table, const std::string_view* keys, size_t n) {
  values_.assign(n, py::handle());
  if (PyDict_Check(h.ptr())) {
    PyObject* key;
    PyObject* value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(h.ptr(), &pos, &key, &value)) {
      if (!PyUnicode_Check(key))
        throw py::value_error(std::string("tvis: ") + table + " record has a key that is not a string");
      Py_ssize_t size = 0;
      const char* k = PyUnicode_AsUTF8AndSize(key, &size);
      if (!k) throw py::error_already_set();
      const std::string_view name(k, static_cast<size_t>(size));
      size_t i = 0;
      while (i < n && keys[i] != name) ++i;
      if (i == n)
        throw py::value_error("tvis: " + std::string(table) + " record has no key '" + std::string(name) +
                              "' (its keys: " + joined(keys, n) + ")");
      if (value != Py_None) values_[i] = value;
    }
    return;
  }
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {  // its fields in declaration order
    auto seq = py::reinterpret_borrow<py::sequence>(h);
    const size_t given = py::len(seq);
    if (given > n)
      throw py::value_error("tvis: " + std::string(table) + " record has " + std::to_string(n) + " fields (" +
                            joined(keys, n) + "); got " + std::to_string(given) + " values");
    for (size_t i = 0; i < given; ++i) {
      PyObject* value = PySequence_Fast_GET_ITEM(h.ptr(), static_cast<Py_ssize_t>(i));
      if (value != Py_None) values_[i] = value;
    }
    return;
  }
  throw py::type_error("tvis: a " + std::string(table) + " record is a dict of its fields (or a tuple of them in " +
                       "declaration order), not " + type_name(h));
}

void wrong_type(py::handle v, const char* table, const char* field, const char* takes) {
  std::string shown;
  try {
    shown = py::repr(v).cast<std::string>();
  } catch (const std::exception&) {
    shown = "?";
  }
  if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
  throw py::type_error("tvis: " + std::string(table) + "." + field + " takes " + takes + ", not " + type_name(v) +
                       " (" + shown + ")");
}

std::string string(py::handle v, const char* table, const char* field) {
  if (!PyUnicode_Check(v.ptr())) wrong_type(v, table, field, "a str");
  return v.cast<std::string>();
}

std::vector<std::string> strings(py::handle v, const char* table, const char* field) {
  check_sequence(v, table, field);
  std::vector<std::string> out;
  for (py::handle x : v) out.push_back(string(x, table, field));
  return out;
}

void check_sequence(py::handle v, const char* table, const char* field) {
  if (PyUnicode_Check(v.ptr()) || PyBytes_Check(v.ptr()) || PyDict_Check(v.ptr()) || !PySequence_Check(v.ptr()))
    wrong_type(v, table, field, "a list");
}

int64_t enum_number(py::handle v, const char* table, const char* field, const char* enum_name, const int64_t* values,
                    const char* const* names, size_t n) {
  const int64_t x = scalar<int64_t>(v, table, field);
  for (size_t i = 0; i < n; ++i)
    if (values[i] == x) return x;
  std::string members;
  for (size_t i = 0; i < n; ++i)
    members += (i ? ", " : "") + std::to_string(values[i]) + " " + names[values[i] - values[0]];
  throw py::value_error("tvis: " + std::string(table) + "." + field + " takes a " + enum_name + " number (" + members +
                        "), not " + std::to_string(x));
}

void adjust(schema::SampleBatchT& r, RecordSpan& span) {
  for (auto& s : r.samples) s->step = r.step;
  span.event_first = span.event_last = r.batch_event;
}

}  // namespace from_dict

namespace {

// A checked detail value as its text (event_detail in py_records.h).
std::string detail_text(flatbuffers::ElementaryType type, py::handle v) {
  switch (type) {
    case flatbuffers::ET_BOOL: return PyObject_IsTrue(v.ptr()) ? "1" : "0";
    case flatbuffers::ET_FLOAT:
    case flatbuffers::ET_DOUBLE: {
      char b[64];
      const auto r = std::to_chars(b, b + sizeof b, v.cast<double>());
      return std::string(b, r.ptr);
    }
    case flatbuffers::ET_STRING: return v.cast<std::string>();
    case flatbuffers::ET_ULONG: return std::to_string(v.cast<uint64_t>());
    default: return std::to_string(v.cast<int64_t>());  // the other integers
  }
}

}  // namespace

std::vector<std::unique_ptr<schema::KeyValueT>> event_detail(py::handle d) {
  if (!PyDict_Check(d.ptr()))
    throw py::type_error(std::string("tvis: Recorder.add_detail takes a dict of EventDetail fields (built by "
                                     "tvis.records.event_detail(...)), not ") +
                         Py_TYPE(d.ptr())->tp_name);
  schema::EventDetailT checked;
  from_dict::fill(checked, d, from_dict::Context{});  // unknown keys and wrong types refused, naming the field
  const flatbuffers::TypeTable* tt = schema::EventDetailTypeTable();
  std::vector<std::unique_ptr<schema::KeyValueT>> out;
  PyObject* key;
  PyObject* value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(d.ptr(), &pos, &key, &value)) {
    if (value == Py_None) continue;  // left out
    const std::string name = py::handle(key).cast<std::string>();
    for (size_t i = 0; i < tt->num_elems; ++i)
      if (name == tt->names[i]) {
        auto kv = std::make_unique<schema::KeyValueT>();
        kv->key = name;
        kv->value = detail_text(static_cast<flatbuffers::ElementaryType>(tt->type_codes[i].base_type), value);
        out.push_back(std::move(kv));
        break;
      }
  }
  return out;
}

std::unique_ptr<schema::KeyValueT> detail_integer(std::string_view field, int64_t value) {
  const flatbuffers::TypeTable* tt = schema::EventDetailTypeTable();
  for (size_t i = 0; i < tt->num_elems; ++i)
    if (field == tt->names[i]) {
      const auto type = static_cast<flatbuffers::ElementaryType>(tt->type_codes[i].base_type);
      if (type < flatbuffers::ET_CHAR || type > flatbuffers::ET_ULONG) break;
      auto kv = std::make_unique<schema::KeyValueT>();
      kv->key = std::string(field);
      kv->value = std::to_string(value);
      return kv;
    }
  throw std::logic_error("tvis: EventDetail has no integer field " + std::string(field));
}

namespace {

// Body members the Recorder writes itself (their ids, offsets and order are its own).
constexpr std::string_view kRecorderOwned[] = {"RunMeta", "SourceFiles", "EventBatch", "TensorBatch", "TensorData"};

bool recorder_owned(std::string_view table) {
  for (auto t : kRecorderOwned)
    if (t == table) return true;
  return false;
}

}  // namespace

std::vector<std::string> addable_records() {
  std::vector<std::string> out;
  for (auto t : from_dict::kBodyTables)
    if (!recorder_owned(t)) out.emplace_back(t);
  return out;
}

Record record_from_dict(std::string_view table, py::handle d, int32_t current_step) {
  Record r;
  from_dict::Context cx;
  cx.step = current_step;
  if (recorder_owned(table) || !from_dict::body_from_dict(table, d, cx, r.body, r.span)) {
    std::string names;
    for (const auto& t : addable_records()) names += (names.empty() ? "" : ", ") + t;
    throw py::value_error("tvis: add_record takes a record of " + names + "; not '" + std::string(table) + "'" +
                          (recorder_owned(table) ? " (the recorder writes those chunks itself)" : ""));
  }
  return r;
}

schema::RunConfigT run_config_from(const py::dict& d) {
  schema::RunConfigT c;
  from_dict::fill(c, d, from_dict::Context{});
  return c;
}

schema::RunMetaT meta_from(const py::dict& d) {
  // The fields the Recorder fills (Recorder::add_phase_timings, finalize): refused as the
  // hand-written key list refused them before, naming the keys a RunMeta dict takes.
  static constexpr std::string_view kOwn[] = {"kind", "phase_timings", "step_device_reads", "config"};
  for (auto key : kOwn)
    if (d.contains(py::str(key.data(), key.size()))) {
      std::string names;
      for (auto f : from_dict::kRunMetaKeys) {
        bool own = false;
        for (auto k : kOwn) own = own || k == f;
        if (!own) names += (names.empty() ? "" : ", ") + std::string(f);
      }
      throw py::value_error("tvis: RunMeta record has no key '" + std::string(key) + "' (its keys: " + names +
                            "; the recorder fills " + std::string(key) + ")");
    }
  schema::RunMetaT m;
  from_dict::fill(m, d, from_dict::Context{});
  m.kind = schema::RunKind::Training;
  return m;
}

}  // namespace tvis::recorder
