// tensorviz.toml → Config: reading the file and validating every field.
// Each check_* function validates one part of a profile and records its
// problems with the field path and the position of the offending value.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "tvis/profiles/config.h"
#include "tvis/profiles/workspace.h"

namespace tvis::profiles {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::set<std::string> kDtypes = {"float16", "bfloat16", "float32", "float64", "int8", "uint8",
                                       "int16",   "int32",    "int64",   "bool",    "complex64"};

int64_t dtype_bytes(const std::string& d) {
  if (d == "float16" || d == "bfloat16" || d == "int16") return 2;
  if (d == "float32" || d == "int32") return 4;
  if (d == "float64" || d == "int64" || d == "complex64") return 8;
  return 1;
}

bool is_float_dtype(const std::string& d) { return d.rfind("float", 0) == 0 || d == "bfloat16" || d == "complex64"; }

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

bool is_dotted_identifier(const std::string& s) {
  size_t at = 0;
  while (true) {
    const size_t dot = s.find('.', at);
    if (!is_identifier(s.substr(at, dot == std::string::npos ? std::string::npos : dot - at))) return false;
    if (dot == std::string::npos) return true;
    at = dot + 1;
  }
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date/time";
  }
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Counts shared by every value of one profile (the SPEC's bounds).
struct Budget {
  int64_t literals = 0, tensors = 0, elements = 0, bytes = 0;
};

class ProfileChecker {
 public:
  ProfileChecker(Profile* p, const std::string& file, const std::string& root) : p_(p), file_(file), root_(root) {}

  void check(const toml::table& t);

 private:
  void problem(const toml::node* at, const std::string& field, const std::string& message) {
    Problem pr{file_, 0, 0, field, message};
    if (at) {
      pr.line = static_cast<int>(at->source().begin.line);
      pr.column = static_cast<int>(at->source().begin.column);
    }
    p_->problems.push_back(std::move(pr));
  }
  std::string at(const std::string& key) const { return "profiles." + p_->name + "." + key; }

  void known_keys(const toml::table& t, const std::string& path, const std::vector<std::string>& known);
  std::optional<std::string> string_of(const toml::table& t, const std::string& key, const std::string& path, bool required);
  std::optional<bool> bool_of(const toml::table& t, const std::string& key, const std::string& path);
  std::optional<int64_t> int_of(const toml::table& t, const std::string& key, const std::string& path, int64_t lo,
                                int64_t hi, const std::string& unit);
  std::optional<std::string> workspace_path(const toml::node& n, const std::string& path, bool must_be_file);

  void check_model(const toml::table& t);
  void check_limits(const toml::table& t);
  void check_construction(const toml::table& t);
  void check_inputs(const toml::table& t);
  std::optional<Callable> callable_of(const toml::node& n, const std::string& path);
  std::optional<json> args_kwargs(const toml::node& n, const std::string& path, bool typed);
  std::optional<json> literal(const toml::node& n, const std::string& path, int depth);
  std::optional<json> typed_value(const toml::node& n, const std::string& path, int depth);
  std::optional<json> tensor(const toml::table& t, const std::string& path);
  std::optional<json> generator(const toml::node& n, const std::string& path, const std::string& dtype);

  Profile* p_;
  const std::string& file_;
  const std::string& root_;
  Budget budget_;
};

void ProfileChecker::known_keys(const toml::table& t, const std::string& path, const std::vector<std::string>& known) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    bool ok = false;
    for (const auto& name : known) ok = ok || name == key;
    if (ok) continue;
    if (key == "timeout_ms" || key == "max_capture_bytes")
      problem(&v, path + "." + key, key + " belongs inside limits: limits = { " + key + " = ... }");
    else
      problem(&v, path + "." + key, "unknown key '" + key + "' (known: " + join(known) + ")");
  }
}

std::optional<std::string> ProfileChecker::string_of(const toml::table& t, const std::string& key,
                                                     const std::string& path, bool required) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) problem(&t, path + "." + key, "missing (required)");
    return std::nullopt;
  }
  if (auto s = n->value<std::string>()) return *s;
  problem(n, path + "." + key, "must be a string, not " + type_name(*n));
  return std::nullopt;
}

std::optional<bool> ProfileChecker::bool_of(const toml::table& t, const std::string& key, const std::string& path) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (n->is_boolean()) return n->as_boolean()->get();
  problem(n, path + "." + key, "must be true or false, not " + type_name(*n));
  return std::nullopt;
}

std::optional<int64_t> ProfileChecker::int_of(const toml::table& t, const std::string& key, const std::string& path,
                                              int64_t lo, int64_t hi, const std::string& unit) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (!n->is_integer()) {
    problem(n, path + "." + key, "must be an integer" + unit + ", not " + type_name(*n));
    return std::nullopt;
  }
  const int64_t v = n->as_integer()->get();
  if (v < lo || v > hi) {
    problem(n, path + "." + key,
            std::to_string(v) + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi) + unit);
    return std::nullopt;
  }
  return v;
}

// A workspace-relative path that, after following symlinks, stays inside the root.
std::optional<std::string> ProfileChecker::workspace_path(const toml::node& n, const std::string& path,
                                                          bool must_be_file) {
  auto s = n.value<std::string>();
  if (!s) {
    problem(&n, path, "must be a string (a workspace-relative path), not " + type_name(n));
    return std::nullopt;
  }
  const fs::path rel(*s);
  if (s->empty() && must_be_file) {
    problem(&n, path, "is empty; name a file relative to the workspace root");
    return std::nullopt;
  }
  if (rel.is_absolute()) {
    problem(&n, path, "'" + *s + "' is absolute; paths are relative to the workspace root " + root_);
    return std::nullopt;
  }
  std::error_code ec;
  const fs::path root_real = fs::weakly_canonical(root_, ec);
  const fs::path full = fs::weakly_canonical(fs::path(root_) / rel, ec);
  const auto [end, _] = std::mismatch(root_real.begin(), root_real.end(), full.begin(), full.end());
  if (end != root_real.end()) {
    problem(&n, path, "'" + *s + "' leads outside the workspace " + root_ + " (to " + full.string() + ")");
    return std::nullopt;
  }
  if (must_be_file && !fs::is_regular_file(full, ec)) {
    problem(&n, path, "'" + *s + "' is not a file in the workspace " + root_);
    return std::nullopt;
  }
  if (!must_be_file && !s->empty() && !fs::is_directory(full, ec)) {
    problem(&n, path, "'" + *s + "' is not a folder in the workspace " + root_);
    return std::nullopt;
  }
  return *s;
}

void ProfileChecker::check(const toml::table& t) {
  auto kind = string_of(t, "kind", "profiles." + p_->name, true);
  if (kind && *kind != "model" && *kind != "script")
    problem(t.get("kind"), at("kind"), "'" + *kind + "' is not a profile kind (model or script)");
  if (kind) p_->kind = *kind;
  if (auto fw = string_of(t, "framework", "profiles." + p_->name, false)) {
    if (*fw != "torch" && *fw != "jax")
      problem(t.get("framework"), at("framework"), "'" + *fw + "' is not a framework (torch, or jax)");
    else
      p_->framework = *fw;
  }
  if (p_->kind == "script") {
    known_keys(t, "profiles." + p_->name, {"kind", "framework", "script", "cwd", "limits"});
    if (const toml::node* s = t.get("script")) {
      if (auto v = workspace_path(*s, at("script"), true)) p_->script = *v;
    } else {
      problem(&t, at("script"), "missing (required for kind = \"script\")");
    }
  } else {
    known_keys(t, "profiles." + p_->name,
               {"kind", "framework", "model", "mode", "device", "grad_enabled", "seed", "deterministic", "cwd",
                "limits", "init", "factory", "inputs"});
    check_model(t);
    check_construction(t);
    check_inputs(t);
  }
  if (const toml::node* c = t.get("cwd")) {
    if (auto v = workspace_path(*c, at("cwd"), false)) p_->cwd = *v;
  }
  check_limits(t);
}

void ProfileChecker::check_model(const toml::table& t) {
  const std::string base = "profiles." + p_->name;
  if (auto m = string_of(t, "model", base, true)) {
    p_->model = *m;
    const size_t colon = m->find(':');
    if (colon == std::string::npos || !is_dotted_identifier(m->substr(0, colon)) ||
        !is_identifier(m->substr(colon + 1)))
      problem(t.get("model"), at("model"), "'" + *m + "' is not module:Class or package.module:Class");
    else {
      p_->module = m->substr(0, colon);
      p_->class_name = m->substr(colon + 1);
    }
  }
  if (auto mode = string_of(t, "mode", base, true)) {
    if (*mode != "eval" && *mode != "train")
      problem(t.get("mode"), at("mode"), "'" + *mode + "' is not a mode (eval or train)");
    else
      p_->mode = *mode;
  }
  if (auto dev = string_of(t, "device", base, true)) {
    bool ok = *dev == "cpu" || *dev == "cuda" || *dev == "mps";
    if (dev->rfind("cuda:", 0) == 0 && dev->size() > 5) {
      ok = true;
      for (size_t i = 5; i < dev->size(); ++i) ok = ok && std::isdigit(static_cast<unsigned char>((*dev)[i]));
    }
    if (!ok)
      problem(t.get("device"), at("device"), "'" + *dev + "' is not a device (cpu, cuda, cuda:N, mps)");
    else
      p_->device = *dev;
  }
  if (!t.get("grad_enabled")) problem(&t, at("grad_enabled"), "missing (required: true or false)");
  if (auto g = bool_of(t, "grad_enabled", base)) p_->grad_enabled = *g;
  if (auto d = bool_of(t, "deterministic", base)) p_->deterministic = *d;
  if (auto s = int_of(t, "seed", base, 0, kMaxSafeInteger, " (a non-negative safe integer)")) p_->seed = *s;
}

void ProfileChecker::check_limits(const toml::table& t) {
  const toml::node* n = t.get("limits");
  if (!n) return;
  const toml::table* l = n->as_table();
  if (!l) {
    problem(n, at("limits"), "must be a table { timeout_ms, max_capture_bytes }, not " + type_name(*n));
    return;
  }
  known_keys(*l, at("limits"), {"timeout_ms", "max_capture_bytes"});
  if (auto v = int_of(*l, "timeout_ms", at("limits"), kTimeoutMinMs, kTimeoutMaxMs, " ms")) p_->timeout_ms = *v;
  if (auto v = int_of(*l, "max_capture_bytes", at("limits"), kCaptureMinBytes, kCaptureMaxBytes, " bytes"))
    p_->max_capture_bytes = *v;
}

std::optional<Callable> ProfileChecker::callable_of(const toml::node& n, const std::string& path) {
  const toml::table* t = n.as_table();
  if (!t) {
    problem(&n, path, "must be a table { file, callable, kwargs }, not " + type_name(n));
    return std::nullopt;
  }
  known_keys(*t, path, {"file", "callable", "kwargs"});
  Callable c;
  bool ok = true;
  if (const toml::node* f = t->get("file")) {
    auto v = workspace_path(*f, path + ".file", true);
    ok = ok && v;
    if (v) c.file = *v;
  } else {
    problem(t, path + ".file", "missing (required: a workspace-relative .py file)");
    ok = false;
  }
  if (auto name = string_of(*t, "callable", path, true)) {
    if (!is_identifier(*name)) {
      problem(t->get("callable"), path + ".callable", "'" + *name + "' is not a top-level name (a Python identifier)");
      ok = false;
    }
    c.callable = *name;
  } else {
    ok = false;
  }
  if (const toml::node* k = t->get("kwargs")) {
    if (!k->is_table()) {
      problem(k, path + ".kwargs", "must be a table of keyword arguments, not " + type_name(*k));
      ok = false;
    } else if (auto v = literal(*k, path + ".kwargs", 0)) {
      c.kwargs = *v;
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return c;
}

void ProfileChecker::check_construction(const toml::table& t) {
  const toml::node* init = t.get("init");
  const toml::node* factory = t.get("factory");
  if (init && factory) {
    problem(factory, at("factory"), "give exactly one of init or factory, not both");
    return;
  }
  if (!init && !factory) {
    problem(&t, at("init"), "missing: give exactly one of init = { args, kwargs } or factory = { file, callable, kwargs }");
    return;
  }
  if (init) {
    if (auto v = args_kwargs(*init, at("init"), false)) p_->init = *v;
  } else if (auto c = callable_of(*factory, at("factory"))) {
    p_->factory = *c;
  }
}

void ProfileChecker::check_inputs(const toml::table& t) {
  const toml::node* n = t.get("inputs");
  if (!n) {
    problem(&t, at("inputs"), "missing: give inputs = { args, kwargs } or inputs = { factory = { file, callable, kwargs } }");
    return;
  }
  const toml::table* in = n->as_table();
  if (in && in->get("factory")) {
    if (in->get("args") || in->get("kwargs")) {
      problem(in->get("factory"), at("inputs.factory"), "an input factory cannot be mixed with explicit args/kwargs");
      return;
    }
    known_keys(*in, at("inputs"), {"factory"});
    if (auto c = callable_of(*in->get("factory"), at("inputs.factory"))) p_->input_factory = *c;
    return;
  }
  if (auto v = args_kwargs(*n, at("inputs"), true)) p_->inputs = *v;
}

std::optional<json> ProfileChecker::args_kwargs(const toml::node& n, const std::string& path, bool typed) {
  const toml::table* t = n.as_table();
  if (!t) {
    problem(&n, path, "must be a table { args = [...], kwargs = {...} }, not " + type_name(n));
    return std::nullopt;
  }
  known_keys(*t, path, typed ? std::vector<std::string>{"args", "kwargs", "factory"} : std::vector<std::string>{"args", "kwargs"});
  json out = {{"args", json::array()}, {"kwargs", json::object()}};
  bool ok = true;
  if (const toml::node* a = t->get("args")) {
    if (const toml::array* arr = a->as_array()) {
      if (static_cast<int64_t>(arr->size()) > kMaxEntries) {
        problem(a, path + ".args", std::to_string(arr->size()) + " arguments, more than " + std::to_string(kMaxEntries));
        ok = false;
      }
      for (size_t i = 0; ok && i < arr->size(); ++i) {
        const std::string ip = path + ".args[" + std::to_string(i) + "]";
        auto v = typed ? typed_value(*arr->get(i), ip, 1) : literal(*arr->get(i), ip, 1);
        if (v) out["args"].push_back(*v); else ok = false;
      }
    } else {
      problem(a, path + ".args", "must be an array, not " + type_name(*a));
      ok = false;
    }
  }
  if (const toml::node* k = t->get("kwargs")) {
    if (const toml::table* kt = k->as_table()) {
      for (const auto& [key, v] : *kt) {
        const std::string name(key.str());
        const std::string kp = path + ".kwargs." + name;
        if (!is_identifier(name)) {
          problem(&v, kp, "'" + name + "' is not a Python parameter name");
          ok = false;
          continue;
        }
        auto val = typed ? typed_value(v, kp, 1) : literal(v, kp, 1);
        if (val) out["kwargs"][name] = *val; else ok = false;
      }
    } else {
      problem(k, path + ".kwargs", "must be a table, not " + type_name(*k));
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

// A JSON literal: integer, float, boolean, string, array, table (bounded).
std::optional<json> ProfileChecker::literal(const toml::node& n, const std::string& path, int depth) {
  if (depth > kMaxDepth) {
    problem(&n, path, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
    return std::nullopt;
  }
  if (++budget_.literals > kMaxLiterals) {
    if (budget_.literals == kMaxLiterals + 1)
      problem(&n, path, "more than " + std::to_string(kMaxLiterals) + " literal values in this profile");
    return std::nullopt;
  }
  if (auto i = n.as_integer()) return json(i->get());
  if (auto f = n.as_floating_point()) {
    const double d = f->get();
    if (!std::isfinite(d)) {
      problem(&n, path, "nan and inf are not JSON literals");
      return std::nullopt;
    }
    return json(d);
  }
  if (auto b = n.as_boolean()) return json(b->get());
  if (auto s = n.as_string()) return json(s->get());
  if (auto a = n.as_array()) {
    if (static_cast<int64_t>(a->size()) > kMaxEntries) {
      problem(&n, path, std::to_string(a->size()) + " entries, more than " + std::to_string(kMaxEntries));
      return std::nullopt;
    }
    json out = json::array();
    for (size_t i = 0; i < a->size(); ++i) {
      auto v = literal(*a->get(i), path + "[" + std::to_string(i) + "]", depth + 1);
      if (!v) return std::nullopt;
      out.push_back(*v);
    }
    return out;
  }
  if (auto t = n.as_table()) {
    if (static_cast<int64_t>(t->size()) > kMaxEntries) {
      problem(&n, path, std::to_string(t->size()) + " entries, more than " + std::to_string(kMaxEntries));
      return std::nullopt;
    }
    json out = json::object();
    for (const auto& [k, v] : *t) {
      auto val = literal(v, path + "." + std::string(k.str()), depth + 1);
      if (!val) return std::nullopt;
      out[std::string(k.str())] = *val;
    }
    return out;
  }
  problem(&n, path, "dates and times are not JSON literals");
  return std::nullopt;
}

// A forward input: a plain literal, or a table with `kind`: tensor, none,
// tuple/list {items = [...]}, dict {items = {...}}.
std::optional<json> ProfileChecker::typed_value(const toml::node& n, const std::string& path, int depth) {
  if (depth > kMaxDepth) {
    problem(&n, path, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
    return std::nullopt;
  }
  const toml::table* t = n.as_table();
  if (!t) {
    if (const toml::array* a = n.as_array()) {
      json out = json::array();
      for (size_t i = 0; i < a->size(); ++i) {
        auto v = typed_value(*a->get(i), path + "[" + std::to_string(i) + "]", depth + 1);
        if (!v) return std::nullopt;
        out.push_back(*v);
      }
      return json{{"kind", "list"}, {"items", out}};
    }
    return literal(n, path, depth);
  }
  const toml::node* kind_node = t->get("kind");
  auto kind = kind_node ? kind_node->value<std::string>() : std::nullopt;
  if (!kind) {
    problem(&n, path + ".kind",
            kind_node ? "must be a string" : "missing: a table input needs kind (tensor, none, list, tuple, dict)");
    return std::nullopt;
  }
  if (*kind == "tensor") return tensor(*t, path);
  if (*kind == "none") {
    known_keys(*t, path, {"kind"});
    return json{{"kind", "none"}};
  }
  if (*kind == "list" || *kind == "tuple" || *kind == "dict") {
    known_keys(*t, path, {"kind", "items"});
    const toml::node* items = t->get("items");
    const bool is_dict = *kind == "dict";
    if (!items || (is_dict ? !items->is_table() : !items->is_array())) {
      problem(items ? items : t, path + ".items", std::string("must be ") + (is_dict ? "a table" : "an array"));
      return std::nullopt;
    }
    json out = is_dict ? json::object() : json::array();
    if (is_dict) {
      for (const auto& [k, v] : *items->as_table()) {
        auto val = typed_value(v, path + ".items." + std::string(k.str()), depth + 1);
        if (!val) return std::nullopt;
        out[std::string(k.str())] = *val;
      }
    } else {
      const toml::array* a = items->as_array();
      for (size_t i = 0; i < a->size(); ++i) {
        auto v = typed_value(*a->get(i), path + ".items[" + std::to_string(i) + "]", depth + 1);
        if (!v) return std::nullopt;
        out.push_back(*v);
      }
    }
    return json{{"kind", *kind}, {"items", out}};
  }
  problem(kind_node, path + ".kind", "'" + *kind + "' is not an input kind (tensor, none, list, tuple, dict)");
  return std::nullopt;
}

std::optional<json> ProfileChecker::tensor(const toml::table& t, const std::string& path) {
  known_keys(t, path, {"kind", "shape", "dtype", "requires_grad", "generator"});
  bool ok = true;
  json out = {{"kind", "tensor"}};
  int64_t elements = 1;
  const toml::node* shape = t.get("shape");
  if (!shape || !shape->is_array()) {
    problem(shape ? shape : &t, path + ".shape", shape ? "must be an array of non-negative integers, not " + type_name(*shape)
                                                       : "missing (required: e.g. shape = [2, 4])");
    ok = false;
  } else {
    const toml::array* a = shape->as_array();
    if (a->size() > 32) {
      problem(shape, path + ".shape", std::to_string(a->size()) + " dims, more than 32");
      ok = false;
    }
    json dims = json::array();
    for (size_t i = 0; ok && i < a->size(); ++i) {
      const toml::node* d = a->get(i);
      if (!d->is_integer() || d->as_integer()->get() < 0) {
        problem(d, path + ".shape[" + std::to_string(i) + "]", "must be a non-negative integer");
        ok = false;
        break;
      }
      const int64_t v = d->as_integer()->get();
      dims.push_back(v);
      elements = (v != 0 && elements > kMaxInputElements / v) ? kMaxInputElements + 1 : elements * v;
    }
    out["shape"] = dims;
  }
  std::string dtype;
  if (auto d = string_of(t, "dtype", path, true)) {
    if (!kDtypes.count(*d)) {
      problem(t.get("dtype"), path + ".dtype", "'" + *d + "' is not a dtype (" + join({kDtypes.begin(), kDtypes.end()}) + ")");
      ok = false;
    } else {
      dtype = *d;
      out["dtype"] = dtype;
    }
  } else {
    ok = false;
  }
  auto rg = bool_of(t, "requires_grad", path);
  if (t.get("requires_grad") && !rg) ok = false;
  if (rg && *rg && !dtype.empty() && !is_float_dtype(dtype)) {
    problem(t.get("requires_grad"), path + ".requires_grad", "only floating-point tensors can require grad, not " + dtype);
    ok = false;
  }
  out["requires_grad"] = rg.value_or(false);
  if (const toml::node* g = t.get("generator")) {
    auto gen = generator(*g, path + ".generator", dtype);
    if (gen) out["generator"] = *gen; else ok = false;
  } else {
    out["generator"] = {{"kind", "normal"}, {"mean", 0.0}, {"std", 1.0}, {"seed", 0}};
  }
  if (!ok) return std::nullopt;
  budget_.tensors += 1;
  budget_.elements += elements;
  budget_.bytes += elements * dtype_bytes(dtype);
  if (budget_.tensors > kMaxInputTensors) {
    problem(&t, path, "more than " + std::to_string(kMaxInputTensors) + " tensors in this profile's inputs");
    return std::nullopt;
  }
  if (budget_.elements > kMaxInputElements) {
    problem(&t, path, "the inputs reach more than " + std::to_string(kMaxInputElements) + " tensor elements");
    return std::nullopt;
  }
  if (budget_.bytes > kMaxInputBytes) {
    problem(&t, path, "the inputs reach more than 64 MiB of tensor data");
    return std::nullopt;
  }
  return out;
}

// generator = {kind="full", value} | {kind="normal", mean?, std?, seed?} |
// {kind="uniform", low?, high?, seed?} | {kind="randint", low, high, seed?} | {kind="zeros"} | {kind="ones"} | {kind="arange"}
std::optional<json> ProfileChecker::generator(const toml::node& n, const std::string& path, const std::string& dtype) {
  const toml::table* t = n.as_table();
  if (!t) {
    problem(&n, path, "must be a table such as { kind = \"full\", value = 1 }, not " + type_name(n));
    return std::nullopt;
  }
  auto kind = string_of(*t, "kind", path, true);
  if (!kind) return std::nullopt;
  std::vector<std::string> keys, required;
  if (*kind == "full") keys = {"kind", "value"}, required = {"value"};
  else if (*kind == "normal") keys = {"kind", "mean", "std", "seed"};
  else if (*kind == "uniform") keys = {"kind", "low", "high", "seed"};
  else if (*kind == "randint") keys = {"kind", "low", "high", "seed"}, required = {"low", "high"};
  else if (*kind == "zeros" || *kind == "ones" || *kind == "arange") keys = {"kind"};
  else {
    problem(t->get("kind"), path + ".kind", "'" + *kind + "' is not a generator (full, normal, uniform, randint, zeros, ones, arange)");
    return std::nullopt;
  }
  const size_t before = p_->problems.size();
  known_keys(*t, path, keys);
  json out = {{"kind", *kind}};
  for (const auto& k : keys) {
    if (k == "kind") continue;
    const toml::node* v = t->get(k);
    if (!v) {
      if (std::find(required.begin(), required.end(), k) != required.end()) problem(t, path + "." + k, "missing (required for " + *kind + ")");
      continue;
    }
    if (k == "seed") {
      if (!v->is_integer() || v->as_integer()->get() < 0 || v->as_integer()->get() > kMaxSafeInteger)
        problem(v, path + ".seed", "must be a non-negative safe integer");
      else
        out["seed"] = v->as_integer()->get();
    } else if (v->is_integer()) {
      out[k] = v->as_integer()->get();
    } else if (v->is_floating_point()) {
      out[k] = v->as_floating_point()->get();
    } else if (v->is_boolean() && dtype == "bool") {
      out[k] = v->as_boolean()->get();
    } else {
      problem(v, path + "." + k, "must be a number, not " + type_name(*v));
    }
  }
  if ((*kind == "normal" || *kind == "uniform") && !dtype.empty() && !is_float_dtype(dtype))
    problem(t->get("kind"), path + ".kind", *kind + " values need a floating-point dtype, not " + dtype);
  if (*kind == "randint" && out.contains("low") && out.contains("high") && !(out["low"] < out["high"]))
    problem(t->get("high"), path + ".high", "must be greater than low");
  if (p_->problems.size() != before) return std::nullopt;
  return out;
}

Problem parse_problem(const std::string& path, const toml::parse_error& e) {
  return Problem{path, static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column), "",
                 "malformed TOML: " + std::string(e.description())};
}

}  // namespace

bool Config::valid() const {
  if (!problems.empty()) return false;
  for (const auto& p : profiles)
    if (!p.valid()) return false;
  return true;
}

std::vector<Problem> Config::all_problems() const {
  std::vector<Problem> out = problems;
  for (const auto& p : profiles) out.insert(out.end(), p.problems.begin(), p.problems.end());
  return out;
}

const Profile* Config::find(const std::string& name) const {
  for (const auto& p : profiles)
    if (p.name == name) return &p;
  return nullptr;
}

Config parse_config(const std::string& text, const std::string& path, const std::string& root) {
  Config c;
  c.path = path;
  c.present = true;
  toml::table doc;
  try {
    doc = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    c.problems.push_back(parse_problem(path, e));
    return c;
  }
  const auto root_problem = [&](const toml::node* n, const std::string& field, const std::string& msg) {
    c.problems.push_back(Problem{path, n ? static_cast<int>(n->source().begin.line) : 0,
                                 n ? static_cast<int>(n->source().begin.column) : 0, field, msg});
  };
  const toml::node* version = doc.get("version");
  if (!version)
    root_problem(nullptr, "version", "missing: the file starts with version = 1");
  else if (!version->is_integer() || version->as_integer()->get() != 1)
    root_problem(version, "version", "this tvis reads version = 1 only");
  for (const auto& [k, v] : doc) {
    const std::string key(k.str());
    if (key != "version" && key != "profiles" && key != "tool")
      root_problem(&v, key, "unknown key '" + key + "' (known: version, profiles, tool)");
  }
  if (const toml::node* tool = doc.get("tool")) {
    if (!tool->is_table()) {
      root_problem(tool, "tool", "must be a table ([tool])");
    } else {
      for (const auto& [k, v] : *tool->as_table())
        if (k.str() != "python_path")
          root_problem(&v, "tool." + std::string(k.str()), "unknown key '" + std::string(k.str()) + "' (known: python_path)");
      if (const toml::node* py = tool->as_table()->get("python_path")) {
        const auto value = py->value<std::string>();
        if (!py->is_string() || !value || value->empty()) {
          root_problem(py, "tool.python_path", "must be the path of a Python interpreter (a non-empty string)");
        } else {
          const char* home = std::getenv("HOME");
          std::string v = *value;
          if (v.rfind("~/", 0) == 0 && home && *home) v = std::string(home) + v.substr(1);
          c.python_path = v[0] == '/' ? v : root + "/" + v;
          c.python_path_line = static_cast<int>(py->source().begin.line);
        }
      }
    }
  }
  const toml::node* all = doc.get("profiles");
  if (all && !all->is_table()) root_problem(all, "profiles", "must be a table of [profiles.NAME] tables");
  if (all && all->is_table()) {
    for (const auto& [k, v] : *all->as_table()) {
      Profile p;
      p.name = std::string(k.str());
      p.line = static_cast<int>(v.source().begin.line);
      if (const toml::table* t = v.as_table()) {
        ProfileChecker(&p, path, root).check(*t);
      } else {
        p.problems.push_back(Problem{path, p.line, static_cast<int>(v.source().begin.column), "profiles." + p.name,
                                     "must be a table ([profiles." + p.name + "]), not " + type_name(v)});
      }
      c.profiles.push_back(std::move(p));
    }
  }
  std::stable_sort(c.profiles.begin(), c.profiles.end(),
                   [](const Profile& a, const Profile& b) { return a.line < b.line; });  // file order
  return c;
}

Config load_config(const std::string& path, const std::string& root) {
  std::string why;
  const ConfigState state = config_state(path, &why);
  if (state == ConfigState::absent) return Config{};
  if (state != ConfigState::file) {
    Config c;
    c.path = path;
    c.present = true;
    c.problems.push_back(Problem{"", 0, 0, "", why});
    return c;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path, root);
}

}  // namespace tvis::profiles
