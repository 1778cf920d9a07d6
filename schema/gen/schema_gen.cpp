// schema_gen: the recorder's boundary generated from recording.fbs at build time.
//
// Reads flatc's reflection of the schema (recording.bfbs, `flatc --binary
// --schema`) and writes, into the build folder (nothing generated is committed):
//   --python FILE  _tvis_schema.py: every enum (name -> number), every table's
//                  fields in declaration order, and what a field absent from a
//                  table reads as (its default, as a chunk's JSON spells it:
//                  enums by name, vectors [], strings ""; sub-tables and unions
//                  have none). tvis/schema.py and tvis/_read.py read it.
//   --cpp FILE     recording_fields.h: every table's field names, so the
//                  binding's key checks are checked against the schema at
//                  compile time (recorder/src/py_records.cpp), and X-macro
//                  lists of the tables and enums (recorder/src/py_schema.cpp
//                  hands flatc's own C++ view of them to the boundary test).
// Contract: the output depends only on the schema; an unreadable or
// unverifiable .bfbs is an error naming the file (exit 1), never a partial output.
#include <flatbuffers/reflection.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string short_name(const flatbuffers::String* qualified) {
  std::string s = qualified->str();
  auto dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(dot + 1);
}

bool is_scalar(reflection::BaseType t) { return t >= reflection::UType && t <= reflection::Double; }

std::string enum_name_of(const reflection::Enum* e, int64_t value) {
  for (const auto* v : *e->values())
    if (v->value() == value) return v->name()->str();
  return {};
}

std::string py_float(double d) {
  if (std::isnan(d)) return "float(\"nan\")";
  if (std::isinf(d)) return d > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  std::ostringstream o;
  o.precision(17);
  o << d;
  std::string s = o.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// The Python literal a field absent from its table reads as; empty when it has none.
std::string py_default(const reflection::Schema& schema, const reflection::Field& f) {
  auto t = f.type()->base_type();
  if (t == reflection::Vector) return "[]";
  if (t == reflection::String) return "\"\"";
  if (!is_scalar(t) || t == reflection::UType) return {};
  if (f.type()->index() >= 0) {  // an enum-typed scalar: by name, as the JSON has it
    const auto* e = schema.enums()->Get(f.type()->index());
    std::string name = enum_name_of(e, f.default_integer());
    return name.empty() ? std::to_string(f.default_integer()) : "\"" + name + "\"";
  }
  if (t == reflection::Bool) return f.default_integer() ? "True" : "False";
  if (t == reflection::Float || t == reflection::Double) return py_float(f.default_real());
  return std::to_string(f.default_integer());
}

// A table's fields in declaration order (the reflection lists them by name).
std::vector<const reflection::Field*> fields_in_order(const reflection::Object& o) {
  std::vector<const reflection::Field*> out(o.fields()->size());
  for (const auto* f : *o.fields()) out[f->id()] = f;
  out.erase(std::remove_if(out.begin(), out.end(),
                           [](const reflection::Field* f) {
                             return f->deprecated() || f->type()->base_type() == reflection::UType;
                           }),
            out.end());
  return out;
}

std::string python(const reflection::Schema& schema) {
  std::ostringstream o;
  o << "\"\"\"Generated from schema/recording.fbs by schema/gen/schema_gen at build time; not in git.\n\n"
       "ENUMS: enum -> {name: number}. FIELDS: table -> its fields in declaration order.\n"
       "DEFAULTS: table -> {field: what the field reads as when a table leaves it out}\n"
       "(enums by name, vectors [], strings \"\"; sub-tables and unions are absent).\n\"\"\"\n\n";
  o << "ENUMS = {\n";
  for (const auto* e : *schema.enums()) {
    o << "    \"" << short_name(e->name()) << "\": {";
    const char* sep = "";
    for (const auto* v : *e->values()) {
      o << sep << "\"" << v->name()->str() << "\": " << v->value();
      sep = ", ";
    }
    o << "},\n";
  }
  o << "}\n\nFIELDS = {\n";
  for (const auto* obj : *schema.objects()) {
    o << "    \"" << short_name(obj->name()) << "\": (";
    for (const auto* f : fields_in_order(*obj)) o << "\"" << f->name()->str() << "\", ";
    o << "),\n";
  }
  o << "}\n\nDEFAULTS = {\n";
  for (const auto* obj : *schema.objects()) {
    o << "    \"" << short_name(obj->name()) << "\": {";
    const char* sep = "";
    for (const auto* f : fields_in_order(*obj)) {
      std::string d = py_default(schema, *f);
      if (d.empty()) continue;
      o << sep << "\"" << f->name()->str() << "\": " << d;
      sep = ", ";
    }
    o << "},\n";
  }
  o << "}\n";
  return o.str();
}

std::string cpp(const reflection::Schema& schema) {
  std::ostringstream o;
  o << "// Generated from schema/recording.fbs by schema/gen/schema_gen at build time; not in git.\n"
       "// Every table's field names in declaration order, for checks against the schema.\n"
       "#pragma once\n#include <cstddef>\n#include <initializer_list>\n#include <string_view>\n\n"
       "namespace tvis::schema_fields {\n\n";
  for (const auto* obj : *schema.objects()) {
    auto fields = fields_in_order(*obj);
    if (fields.empty()) {  // C++ has no empty array; such a table has no keys to check
      o << "// " << short_name(obj->name()) << ": no fields\n";
      continue;
    }
    o << "inline constexpr std::string_view " << short_name(obj->name()) << "[] = {";
    const char* sep = "";
    for (const auto* f : fields) {
      o << sep << "\"" << f->name()->str() << "\"";
      sep = ", ";
    }
    o << "};\n";
  }
  o << "\n// X(Name) for every table, and for every enum (the Body union's type included).\n"
       "#define TVIS_SCHEMA_TABLES(X)";
  for (const auto* obj : *schema.objects()) o << " X(" << short_name(obj->name()) << ")";
  o << "\n#define TVIS_SCHEMA_ENUMS(X)";
  for (const auto* e : *schema.enums()) o << " X(" << short_name(e->name()) << ")";
  o << "\n";
  o << "\n// Whether `key` is one of `fields` (usable in static_assert).\n"
       "template <std::size_t N>\n"
       "constexpr bool has(const std::string_view (&fields)[N], std::string_view key) {\n"
       "  for (std::string_view f : fields)\n    if (f == key) return true;\n  return false;\n}\n\n"
       "// Whether every one of `keys` is one of `fields` (usable in static_assert).\n"
       "template <std::size_t N>\n"
       "constexpr bool has_all(const std::string_view (&fields)[N], std::initializer_list<std::string_view> keys) {\n"
       "  for (std::string_view k : keys)\n    if (!has(fields, k)) return false;\n  return true;\n}\n\n"
       "}  // namespace tvis::schema_fields\n";
  return o.str();
}

bool write_if_changed(const std::string& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.good() || in.eof())
      if (old == text) return true;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) std::fprintf(stderr, "schema_gen: cannot write %s\n", path.c_str());
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: schema_gen SCHEMA.bfbs [--python FILE] [--cpp FILE]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::string buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && !in.good()) {
    std::fprintf(stderr, "schema_gen: cannot read %s\n", argv[1]);
    return 1;
  }
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(buf.data()), buf.size());
  if (buf.empty() || !reflection::VerifySchemaBuffer(verifier)) {
    std::fprintf(stderr, "schema_gen: %s is not a FlatBuffers reflection schema (flatc --binary --schema)\n", argv[1]);
    return 1;
  }
  const reflection::Schema& schema = *reflection::GetSchema(buf.data());
  for (int i = 2; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc || (flag != "--python" && flag != "--cpp")) {
      std::fprintf(stderr, "schema_gen: unknown argument %s\n", argv[i]);
      return 2;
    }
    if (!write_if_changed(argv[++i], flag == "--python" ? python(schema) : cpp(schema))) return 1;
  }
  return 0;
}
