// py_schema.cpp: `_tvis_native.schema_enums()` and `schema_defaults()`, the
// schema as flatc's generated C++ (recording_generated.h) has it, so a test
// can hold the Python side (_tvis_schema.py, written by schema_gen from
// recording.bfbs) against the C++ side without either copying the other
// (tests/recorder/test_schema_boundary.py).
//
//   schema_enums()     {enum: {member name: value}}, from EnumValues*/EnumName*
//   schema_defaults()  {table: JSON text of a default-constructed object-API
//                      table packed with every scalar written (ForceDefaults),
//                      as RunFile.chunk_json spells a chunk}
//   schema_from_dict(table, record)
//                      JSON text of `record` (a dict) converted to `table` by the
//                      binding's generated conversion (recording_from_dict.h)
//                      and packed; any table it converts (ValueError otherwise)
#include <flatbuffers/minireflect.h>
#include <pybind11/pybind11.h>

#include <string>

#include "tvis/schema/recording_fields.h"
#include "tvis/schema/recording_from_dict.h"
#include "tvis/schema/recording_generated.h"

namespace py = pybind11;
namespace schema = tvis::schema;

namespace {

template <typename T>
std::string packed_json(const typename T::NativeTableType& native, const flatbuffers::TypeTable* table) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(T::Pack(fbb, &native));
  flatbuffers::ToStringVisitor v(" ", true, "", true);
  flatbuffers::IterateFlatBuffer(fbb.GetBufferPointer(), table, &v);
  return v.s;
}

template <typename T>
std::string default_json(const flatbuffers::TypeTable* table) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);
  typename T::NativeTableType native{};
  fbb.Finish(T::Pack(fbb, &native));
  flatbuffers::ToStringVisitor v(" ", true, "", true);
  flatbuffers::IterateFlatBuffer(fbb.GetBufferPointer(), table, &v);
  return v.s;
}

}  // namespace

void register_schema(py::module_& m) {
  m.def("schema_enums", [] {
    py::dict out;
#define TVIS_ENUM(E)                                                              \
  {                                                                               \
    py::dict members;                                                             \
    for (auto v : schema::EnumValues##E()) members[schema::EnumName##E(v)] = static_cast<int64_t>(v); \
    out[#E] = members;                                                            \
  }
    TVIS_SCHEMA_ENUMS(TVIS_ENUM)
#undef TVIS_ENUM
    return out;
  });
  m.def("schema_defaults", [] {
    py::dict out;
#define TVIS_TABLE(T) out[#T] = default_json<schema::T>(schema::T##TypeTable());
    TVIS_SCHEMA_TABLES(TVIS_TABLE)
#undef TVIS_TABLE
    return out;
  });
  m.def("schema_from_dict", [](const std::string& table, py::handle record) -> std::string {
    namespace fd = tvis::recorder::from_dict;
#define TVIS_CONVERT(T)                                            \
  if (table == #T) {                                               \
    schema::T::NativeTableType native;                             \
    fd::fill(native, record, fd::Context{});                       \
    return packed_json<schema::T>(native, schema::T##TypeTable()); \
  }
    TVIS_CONVERTED_TABLES(TVIS_CONVERT)
#undef TVIS_CONVERT
    throw py::value_error("tvis: schema_from_dict: no converted table '" + table + "'");
  });
}
