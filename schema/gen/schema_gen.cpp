// schema_gen: the recorder's boundary generated from recording.fbs at build time.
//
// Reads flatc's reflection of the schema (recording.bfbs, `flatc --binary
// --schema`) and writes, into the build folder (nothing generated is committed):
//   --python FILE  _tvis_schema.py: every enum (name -> number), every table's
//                  fields in declaration order, and what a field absent from a
//                  table reads as (its default, as a chunk's JSON spells it:
//                  enums by name, vectors [], strings ""; sub-tables and unions
//                  have none). tvis/schema.py and tvis/_read.py read it.
//                  TYPES (each field's type as the .fbs spells it) and
//                  REQUIRED (the fields marked `tvis_required`) too.
//   --python-records FILE
//                  _tvis_records.py: one keyword-only constructor per table,
//                  named in snake_case (LossRecord -> loss_record), whose
//                  `tvis_required` fields have no default and whose others
//                  default to None and are left out of the dict (the schema's
//                  default is recorded); tvis/records.py re-exports them.
//   --cpp FILE     recording_fields.h: every table's field names, and
//                  X-macro lists of the tables and enums
//                  (recorder/src/py_schema.cpp hands flatc's own C++ view of
//                  them to the boundary test).
//   --cpp-converters FILE
//                  recording_from_dict.h: for every table, the binding's
//                  dict -> object-API table conversion (a specialisation of
//                  from_dict::fill, recorder/src/py_from_dict.h: unknown keys
//                  refused, scalars, bools, enums as numbers in range,
//                  strings, vectors and sub-tables read, a left-out or None
//                  key the schema's default), each Body member's chunk span
//                  (span_of) and the dispatch by table name (body_from_dict).
//                  A table with a field of a type it cannot convert (a union,
//                  a struct) fails the generation unless kNotConverted names
//                  it with the reason.
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
  if (f.optional()) return {};  // `= null` (EventDetail): absent has no value, left out as a string or vector is
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

bool is_required(const reflection::Field& f) {
  return f.attributes() && f.attributes()->LookupByKey("tvis_required") != nullptr;
}

// The .fbs spelling of a scalar base type.
const char* fbs_scalar(reflection::BaseType t) {
  switch (t) {
    case reflection::Bool: return "bool";
    case reflection::Byte: return "byte";
    case reflection::UByte: return "ubyte";
    case reflection::Short: return "short";
    case reflection::UShort: return "ushort";
    case reflection::Int: return "int";
    case reflection::UInt: return "uint";
    case reflection::Long: return "long";
    case reflection::ULong: return "ulong";
    case reflection::Float: return "float";
    case reflection::Double: return "double";
    case reflection::String: return "string";
    default: return "?";
  }
}

// A field's type as the .fbs spells it: "int", "[string]", "Phase", "[SampleLoss]", "Body".
std::string fbs_type(const reflection::Schema& schema, const reflection::Field& f) {
  const auto* type = f.type();
  auto base = type->base_type();
  bool vector = base == reflection::Vector;
  auto t = vector ? type->element() : base;
  std::string name;
  if (t == reflection::Obj)
    name = short_name(schema.objects()->Get(type->index())->name());
  else if (t == reflection::Union || (is_scalar(t) && type->index() >= 0))
    name = short_name(schema.enums()->Get(type->index())->name());
  else
    name = fbs_scalar(t);
  return vector ? "[" + name + "]" : name;
}

// snake_case of a table name: LossRecord -> loss_record, GradCamRecord -> grad_cam_record.
std::string snake(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c >= 'A' && c <= 'Z') {
      bool boundary = i > 0 && ((name[i - 1] >= 'a' && name[i - 1] <= 'z') || (name[i - 1] >= '0' && name[i - 1] <= '9') ||
                                (i + 1 < name.size() && name[i + 1] >= 'a' && name[i + 1] <= 'z'));
      if (boundary) out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

bool python_keyword(const std::string& s) {
  static const char* const kKeywords[] = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};
  for (const char* k : kKeywords)
    if (s == k) return true;
  return false;
}

// What flatc's C++ calls a field (a C++ keyword gets a trailing '_': module -> module_).
std::string cpp_member(const std::string& s) {
  static const char* const kKeywords[] = {
      "alignas", "alignof", "and", "and_eq", "asm", "atomic_cancel", "atomic_commit", "atomic_noexcept", "auto",
      "bitand", "bitor", "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "class", "compl",
      "concept", "const", "constexpr", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype",
      "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "import", "inline", "int", "long", "module", "mutable", "namespace",
      "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
      "register", "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "synchronized", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
      "volatile", "wchar_t", "while", "xor", "xor_eq"};
  for (const char* k : kKeywords)
    if (s == k) return s + "_";
  return s;
}

// The C++ type of a scalar base type, as the object API holds it.
const char* cpp_scalar(reflection::BaseType t) {
  switch (t) {
    case reflection::Bool: return "bool";
    case reflection::Byte: return "int8_t";
    case reflection::UByte: return "uint8_t";
    case reflection::Short: return "int16_t";
    case reflection::UShort: return "uint16_t";
    case reflection::Int: return "int32_t";
    case reflection::UInt: return "uint32_t";
    case reflection::Long: return "int64_t";
    case reflection::ULong: return "uint64_t";
    case reflection::Float: return "float";
    case reflection::Double: return "double";
    default: return nullptr;
  }
}

// Tables the binding does not convert from a dict, each with its reason; any
// other table with a field of a type the converters cannot read fails here.
struct NotConverted {
  const char* table;
  const char* reason;
};
constexpr NotConverted kNotConverted[] = {
    {"Chunk", "the chunk itself: its body (a union) is the one record RunBuilder packs"},
};

const char* not_converted(const std::string& table) {
  for (const auto& n : kNotConverted)
    if (table == n.table) return n.reason;
  return nullptr;
}

// Why the converters cannot read field `f` (empty: they can).
std::string unconvertible(const reflection::Schema& schema, const reflection::Field& f) {
  auto base = f.type()->base_type();
  auto t = base == reflection::Vector ? f.type()->element() : base;
  if (t == reflection::Union || t == reflection::UType) return "a union";
  if (base == reflection::Vector && (t == reflection::Vector || t == reflection::Array)) return "a vector of vectors";
  if (t == reflection::Array) return "a fixed-size array";
  if (t == reflection::Obj && schema.objects()->Get(f.type()->index())->is_struct()) return "a struct";
  return {};
}

std::string python_records(const reflection::Schema& schema, std::string* error) {
  std::ostringstream o;
  o << "\"\"\"Generated from schema/recording.fbs by schema/gen/schema_gen at build time; not in git.\n\n"
       "One constructor per table, named in snake_case (LossRecord -> loss_record): its\n"
       "arguments are the table's fields, keyword-only, so a misspelt field is a TypeError\n"
       "where the record is built. A field marked `tvis_required` in the schema has no\n"
       "default; the others default to None, and a field left None is left out of the dict\n"
       "(the native recorder then records the schema's default). A sub-table is such a dict\n"
       "(or a tuple of its fields in declaration order); an enum is its number.\n"
       "CONSTRUCTORS: table -> its constructor. tvis/records.py re-exports them.\n\"\"\"\n\n\n"
       "def _given(fields):\n"
       "    \"\"\"The dict of the fields that are not None, in declaration order.\"\"\"\n"
       "    return {k: v for k, v in fields.items() if v is not None}\n";
  std::vector<std::pair<std::string, std::string>> made;  // table, constructor
  for (const auto* obj : *schema.objects()) {
    const std::string table = short_name(obj->name());
    const std::string fn = snake(table);
    for (const auto& m : made)
      if (m.second == fn) *error = "tables " + m.first + " and " + table + " have one constructor name " + fn;
    if (python_keyword(fn) || fn == "_given" || fn == "CONSTRUCTORS")
      *error = "table " + table + "'s constructor name " + fn + " is taken in Python";
    made.emplace_back(table, fn);
    auto fields = fields_in_order(*obj);
    o << "\n\ndef " << fn << "(";
    if (!fields.empty()) o << "*";
    std::vector<std::string> required;
    for (const auto* f : fields) {
      const std::string name = f->name()->str();
      if (python_keyword(name)) *error = table + "." + name + " is a Python keyword";
      o << ", " << name;
      if (is_required(*f))
        required.push_back(name);
      else
        o << "=None";
    }
    o << "):\n    \"\"\"" << table << " (schema/recording.fbs)";
    if (obj->documentation() && obj->documentation()->size()) {
      o << ":";
      for (const auto* line : *obj->documentation()) o << "\n   " << line->str();
    }
    o << "\n\n    Required: ";
    if (required.empty()) o << "none";
    for (size_t i = 0; i < required.size(); ++i) o << (i ? ", " : "") << required[i];
    o << ".\"\"\"\n    return _given(locals())\n";
  }
  o << "\n\nCONSTRUCTORS = {\n";
  for (const auto& m : made) o << "    \"" << m.first << "\": " << m.second << ",\n";
  o << "}\n";
  return o.str();
}

std::string converters(const reflection::Schema& schema, std::string* error) {
  std::ostringstream o;
  o << "// Generated from schema/recording.fbs by schema/gen/schema_gen at build time; not in git.\n"
       "// The binding's dict -> table conversions, one from_dict::fill specialisation per table,\n"
       "// each Body member's chunk span (span_of) and the dispatch by table name (body_from_dict).\n"
       "// Contract and helpers: recorder/src/py_from_dict.h (included first).\n"
       "#pragma once\n#include <string_view>\n\n#include \"py_from_dict.h\"\n\n"
       "namespace tvis::recorder::from_dict {\n\n";
  for (const auto& n : kNotConverted) o << "// Not converted: " << n.table << " (" << n.reason << ").\n";
  std::vector<const reflection::Object*> tables;
  for (const auto* obj : *schema.objects()) {
    const std::string table = short_name(obj->name());
    if (obj->is_struct()) continue;
    if (not_converted(table)) continue;
    for (const auto* f : fields_in_order(*obj)) {
      std::string why = unconvertible(schema, *f);
      if (!why.empty())
        *error = table + "." + f->name()->str() + " is " + why +
                 ", which the binding cannot read from a dict: name the table in kNotConverted with the reason";
    }
    tables.push_back(obj);
    o << "template <> inline void fill(schema::" << table << "T& out, pybind11::handle h, const Context& cx);\n";
  }
  o << "\n// X(Name) for every converted table.\n#define TVIS_CONVERTED_TABLES(X)";
  for (const auto* obj : tables) o << " X(" << short_name(obj->name()) << ")";
  o << "\n\n// Each converted table's keys (its fields in declaration order).\n";
  for (const auto* obj : tables) {
    auto fields = fields_in_order(*obj);
    if (fields.empty()) continue;
    o << "inline constexpr std::string_view k" << short_name(obj->name()) << "Keys[] = {";
    for (size_t i = 0; i < fields.size(); ++i) o << (i ? ", " : "") << "\"" << fields[i]->name()->str() << "\"";
    o << "};\n";
  }
  for (const auto* obj : tables) {
    const std::string table = short_name(obj->name());
    auto fields = fields_in_order(*obj);
    o << "\ntemplate <>\ninline void fill(schema::" << table << "T& out, pybind11::handle h, const Context& cx) {\n";
    if (fields.empty()) {
      o << "  (void)out;\n  (void)cx;\n  const Fields f(h, \"" << table << "\", nullptr, 0);  // no fields: any key is refused\n}\n";
      continue;
    }
    o << "  const Fields f(h, \"" << table << "\", k" << table << "Keys, " << fields.size() << ");\n";
    bool used_cx = false;
    for (size_t i = 0; i < fields.size(); ++i) {
      const auto* f = fields[i];
      const std::string name = f->name()->str();
      const std::string member = "out." + cpp_member(name);
      const std::string where = "\"" + table + "\", \"" + name + "\"";
      const auto* type = f->type();
      auto base = type->base_type();
      o << "  if (pybind11::handle v = f[" << i << "]) " << member << " = ";
      auto enum_args = [&](int index) {
        const auto* e = schema.enums()->Get(index);
        std::ostringstream a;
        a << "\"" << short_name(e->name()) << "\", schema::EnumValues" << short_name(e->name()) << "(), schema::EnumNames"
          << short_name(e->name()) << "()";
        return a.str();
      };
      if (base == reflection::Vector) {
        auto el = type->element();
        if (el == reflection::Obj) {
          o << "tables<schema::" << short_name(schema.objects()->Get(type->index())->name()) << "T>(v, cx, " << where
            << ")";
          used_cx = true;
        } else if (el == reflection::String) {
          o << "strings(v, " << where << ")";
        } else if (type->index() >= 0) {
          o << "enums(v, " << where << ", " << enum_args(type->index()) << ")";
        } else {
          o << "scalars<" << cpp_scalar(el) << ">(v, " << where << ")";
        }
      } else if (base == reflection::Obj) {
        o << "table<schema::" << short_name(schema.objects()->Get(type->index())->name()) << "T>(v, cx, " << where
          << ")";
        used_cx = true;
      } else if (base == reflection::String) {
        o << "string(v, " << where << ")";
      } else if (type->index() >= 0) {
        o << "enumerated(v, " << where << ", " << enum_args(type->index()) << ")";
      } else {
        o << "scalar<" << cpp_scalar(base) << ">(v, " << where << ")";
      }
      o << ";\n";
      if (name == "step" && base == reflection::Int) {
        o << "  else if (cx.step) " << member << " = *cx.step;  // the recorder's current step (Context)\n";
        used_cx = true;
      }
    }
    if (!used_cx) o << "  (void)cx;\n";
    o << "}\n";
  }

  // Body members: span_of and the dispatch.
  const reflection::Enum* body = nullptr;
  for (const auto* e : *schema.enums())
    if (e->is_union() && short_name(e->name()) == "Body") body = e;
  if (!body) {
    *error = "the schema has no union Body";
    return {};
  }
  auto field_named = [](const reflection::Object& obj, const char* name) -> const reflection::Field* {
    for (const auto* f : *obj.fields())
      if (f->name()->str() == name && !f->deprecated()) return f;
    return nullptr;
  };
  std::vector<std::string> members;
  o << "\n// A Body member's chunk span: its `step` field (a table without one: the range of the\n"
       "// `step` fields of the tables in its vectors, -1 when none) and its `event` field (none\n"
       "// without one).\n";
  for (const auto* v : *body->values()) {
    if (v->value() == 0) continue;
    const auto* obj = schema.objects()->Get(v->union_type()->index());
    const std::string table = short_name(obj->name());
    members.push_back(table);
    o << "inline RecordSpan span_of(const schema::" << table << "T& r) {\n  RecordSpan s;\n";
    const auto* step = field_named(*obj, "step");
    if (step && step->type()->base_type() == reflection::Int) {
      o << "  s.step_first = s.step_last = r.step;\n";
    } else {
      for (const auto* f : fields_in_order(*obj)) {
        if (f->type()->base_type() != reflection::Vector || f->type()->element() != reflection::Obj) continue;
        const auto* el = schema.objects()->Get(f->type()->index());
        const auto* es = field_named(*el, "step");
        if (!es || es->type()->base_type() != reflection::Int) continue;
        o << "  for (const auto& x : r." << cpp_member(f->name()->str()) << ") s.cover(x->step);\n";
      }
    }
    const auto* event = field_named(*obj, "event");
    if (event && event->type()->base_type() == reflection::ULong) o << "  s.event_first = s.event_last = r.event;\n";
    if (!(step && step->type()->base_type() == reflection::Int) && !event) o << "  (void)r;\n";
    o << "  return s;\n}\n";
  }
  o << "\n// The Body members, in union order.\ninline constexpr std::string_view kBodyTables[] = {";
  for (size_t i = 0; i < members.size(); ++i) o << (i ? ", " : "") << "\"" << members[i] << "\"";
  o << "};\n\n"
       "// `table`'s record converted from `h` into `out`, with its span (span_of, then the\n"
       "// record's own adjust()); false when `table` is not a Body member.\n"
       "inline bool body_from_dict(std::string_view table, pybind11::handle h, const Context& cx,\n"
       "                           schema::BodyUnion& out, RecordSpan& span) {\n";
  for (const auto& t : members) {
    o << "  if (table == \"" << t << "\") {\n"
      << "    auto r = from_dict::table<schema::" << t << "T>(h, cx, nullptr, nullptr);\n"
      << "    span = span_of(*r);\n    adjust(*r, span);\n    out.Set(std::move(*r));\n    return true;\n  }\n";
  }
  o << "  return false;\n}\n\n}  // namespace tvis::recorder::from_dict\n";
  return o.str();
}

std::string python(const reflection::Schema& schema) {
  std::ostringstream o;
  o << "\"\"\"Generated from schema/recording.fbs by schema/gen/schema_gen at build time; not in git.\n\n"
       "ENUMS: enum -> {name: number}. FIELDS: table -> its fields in declaration order.\n"
       "DEFAULTS: table -> {field: what the field reads as when a table leaves it out}\n"
       "(enums by name, vectors [], strings \"\"; sub-tables and unions are absent).\n"
       "TYPES: table -> {field: its type as the .fbs spells it (\"int\", \"[string]\", \"Phase\",\n"
       "\"[SampleLoss]\")}. REQUIRED: table -> the fields marked `tvis_required`.\n\"\"\"\n\n";
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
  o << "}\n\nTYPES = {\n";
  for (const auto* obj : *schema.objects()) {
    o << "    \"" << short_name(obj->name()) << "\": {";
    const char* sep = "";
    for (const auto* f : fields_in_order(*obj)) {
      o << sep << "\"" << f->name()->str() << "\": \"" << fbs_type(schema, *f) << "\"";
      sep = ", ";
    }
    o << "},\n";
  }
  o << "}\n\nREQUIRED = {\n";
  for (const auto* obj : *schema.objects()) {
    o << "    \"" << short_name(obj->name()) << "\": (";
    for (const auto* f : fields_in_order(*obj))
      if (is_required(*f)) o << "\"" << f->name()->str() << "\", ";
    o << "),\n";
  }
  o << "}\n";
  return o.str();
}

std::string cpp(const reflection::Schema& schema) {
  std::ostringstream o;
  o << "// Generated from schema/recording.fbs by schema/gen/schema_gen at build time; not in git.\n"
       "// Every table's field names in declaration order, for checks against the schema.\n"
       "#pragma once\n#include <string_view>\n\n"
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
  o << "\n\n}  // namespace tvis::schema_fields\n";
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
    std::fprintf(stderr,
                 "usage: schema_gen SCHEMA.bfbs [--python FILE] [--python-records FILE] [--cpp FILE] "
                 "[--cpp-converters FILE]\n");
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
    if (i + 1 >= argc ||
        (flag != "--python" && flag != "--python-records" && flag != "--cpp" && flag != "--cpp-converters")) {
      std::fprintf(stderr, "schema_gen: unknown argument %s\n", argv[i]);
      return 2;
    }
    std::string error;
    std::string text = flag == "--python"           ? python(schema)
                       : flag == "--python-records" ? python_records(schema, &error)
                       : flag == "--cpp"            ? cpp(schema)
                                                    : converters(schema, &error);
    if (!error.empty()) {
      std::fprintf(stderr, "schema_gen: %s: %s\n", argv[1], error.c_str());
      return 1;
    }
    if (!write_if_changed(argv[++i], text)) return 1;
  }
  return 0;
}
