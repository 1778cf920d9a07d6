// The setup form's fields → a profile, and back (setup_form.h). Only the
// reading of the typed text is done here (TOML values with toml++, shapes,
// numbers); every rule of a profile (dtypes, generator keys, bounds, files)
// is config_reader's, checked when the spliced file is parsed.
#include <toml++/toml.h>

#include <cctype>
#include <sstream>

#include "tvis/profiles/profile_writer.h"
#include "tvis/profiles/setup_form.h"

namespace tvis::profiles {

using nlohmann::json;

namespace {

struct Refusal {
  std::string text;
};

[[noreturn]] void refuse(const std::string& field, const std::string& why) {
  std::string t = field + ": " + why;
  if (t.size() > 300) t = t.substr(0, 297) + "...";
  throw Refusal{t};
}

std::string str(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "";
  if (!j[key].is_string()) refuse(key, "must be text");
  return j[key].get<std::string>();
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string shown(const std::string& s) { return "'" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "'"; }

json json_of(const toml::node& n, const std::string& field) {
  if (auto v = n.as_string()) return v->get();
  if (auto v = n.as_integer()) return v->get();
  if (auto v = n.as_floating_point()) return v->get();
  if (auto v = n.as_boolean()) return v->get();
  if (auto a = n.as_array()) {
    json out = json::array();
    for (const auto& x : *a) out.push_back(json_of(x, field));
    return out;
  }
  if (auto t = n.as_table()) {
    json out = json::object();
    for (const auto& [k, x] : *t) out[std::string(k.str())] = json_of(x, field);
    return out;
  }
  refuse(field, "dates and times are not values a model takes");
}

// One TOML value as typed ("8", "\"relu\"", "[1, 2]", "{kind = \"none\"}").
json value_of(const std::string& text, const std::string& field) {
  try {
    const toml::table t = toml::parse("v = " + text + "\n");
    return json_of(*t.get("v"), field);
  } catch (const toml::parse_error&) {
    refuse(field, shown(text) + " is not a TOML value (a number, true/false, a \"string\", an [array], a { table })");
  }
}

// TOML `key = value` lines (blank: none).
json table_of(const std::string& text, const std::string& field) {
  if (trim(text).empty()) return json::object();
  try {
    const toml::table t = toml::parse(text + "\n");
    return json_of(t, field);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    refuse(field, "line " + std::to_string(where.line) + ": " + std::string(e.description()) +
                      " (write one `name = value` per line)");
  }
}

// "2, 4", "[2, 4]", "2x4", "2 × 4", "2 4": positive integers ('x' only between digits).
json shape_of(const std::string& text, const std::string& field) {
  std::string s = trim(text);
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  for (size_t at; (at = s.find("\xC3\x97")) != std::string::npos;) s.replace(at, 2, " ");  // '×'
  for (char& c : s)
    if (c == ',') c = ' ';
  std::istringstream in(s);
  json out = json::array();
  std::string part;
  while (in >> part) {
    size_t at = 0;
    while (true) {
      size_t end = at;
      while (end < part.size() && std::isdigit(static_cast<unsigned char>(part[end]))) ++end;
      const std::string digits = part.substr(at, end - at);
      const bool more = end < part.size() && (part[end] == 'x' || part[end] == 'X') && end + 1 < part.size();
      if (digits.empty() || digits.size() > 9 || std::stoll(digits) <= 0 || (end < part.size() && !more))
        refuse(field, shown(text) + " is not a shape: positive integers separated by commas, like 2, 4");
      out.push_back(std::stoll(digits));
      if (!more) break;
      at = end + 1;
    }
  }
  if (out.empty()) refuse(field, "a tensor needs a shape, like 2, 4");
  return out;
}

int64_t integer_of(const std::string& text, const std::string& field) {
  const std::string s = trim(text);
  bool digits = !s.empty() && s.size() <= 15;
  for (char c : s) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits) refuse(field, shown(text) + " is not a whole number");
  return std::stoll(s);
}

json callable_of(const json& j, const std::string& field, bool with_kwargs) {
  json c = {{"file", trim(str(j, "file"))}, {"callable", trim(str(j, "callable"))}, {"kwargs", json::object()}};
  if (c["file"].get<std::string>().empty()) refuse(field + ".file", "name the workspace file that defines it");
  if (c["callable"].get<std::string>().empty()) refuse(field + ".callable", "name the function");
  if (with_kwargs) c["kwargs"] = table_of(str(j, "kwargs"), field + ".kwargs");
  return c;
}

json tensor_of(const json& t, const std::string& field) {
  json out = {{"kind", "tensor"}, {"shape", shape_of(str(t, "shape"), field + ".shape")}};
  out["dtype"] = trim(str(t, "dtype")).empty() ? "float32" : trim(str(t, "dtype"));
  out["requires_grad"] = t.value("requires_grad", false);
  const std::string g = trim(str(t, "generator"));
  json gen = {{"kind", g.empty() ? "normal" : g}};
  if (g == "full") gen["value"] = value_of(trim(str(t, "value")).empty() ? "1" : str(t, "value"), field + ".value");
  if (g == "randint") {
    gen["low"] = integer_of(trim(str(t, "low")).empty() ? "0" : str(t, "low"), field + ".low");
    gen["high"] = integer_of(trim(str(t, "high")).empty() ? "10" : str(t, "high"), field + ".high");
  }
  out["generator"] = gen;
  return out;
}

}  // namespace

json profile_from_form(const json& form, const std::string& class_ref, std::string* error) {
  try {
    if (!form.is_object()) refuse("form", "must be a JSON object");
    json p = json::object();
    p["model"] = class_ref;
    const std::string mode = trim(str(form, "mode"));
    p["mode"] = mode.empty() ? "eval" : mode;
    const std::string device = trim(str(form, "device"));
    p["device"] = device.empty() ? "cpu" : device;
    p["grad_enabled"] = p["mode"] == "train";
    if (!trim(str(form, "seed")).empty()) p["seed"] = integer_of(str(form, "seed"), "seed");
    const std::string timeout = trim(str(form, "timeout_ms"));
    p["limits"] = {{"timeout_ms", timeout.empty() ? kTimeoutDefaultMs : integer_of(timeout, "timeout_ms")}};

    if (str(form, "construct") == "factory") {
      p["factory"] = callable_of(form.value("factory", json::object()), "factory", true);
    } else {
      json kwargs = json::object();
      for (const auto& a : form.value("init", json::array())) {
        const std::string name = trim(str(a, "name"));
        const std::string value = trim(str(a, "value"));
        if (name.empty() || value.empty()) continue;  // left to its default
        kwargs[name] = value_of(value, "init." + name);
      }
      p["init"] = {{"args", json::array()}, {"kwargs", kwargs}};
    }

    if (str(form, "inputs_from") == "example") {
      p["inputs"] = {{"factory", callable_of(form.value("example", json::object()), "example", false)}};
    } else {
      json args = json::array(), kwargs = json::object();
      bool positional = true;  // args while every earlier positional one is given; then by name
      for (const auto& t : form.value("tensors", json::array())) {
        const std::string name = trim(str(t, "name"));
        const std::string kind = trim(str(t, "kind"));
        if (!t.value("use", true)) {
          positional = false;
          continue;
        }
        json v = tensor_of(t, "inputs." + name);
        if (positional && (kind == "pos" || kind == "posonly" || kind.empty()))
          args.push_back(std::move(v));
        else if (kind == "posonly")
          refuse("inputs." + name, "is positional-only: it cannot follow a skipped input");
        else {
          positional = false;
          kwargs[name] = std::move(v);
        }
      }
      const json options = table_of(str(form, "forward_kwargs"), "forward_kwargs");
      for (const auto& [k, v] : options.items()) {
        if (kwargs.contains(k)) refuse("forward_kwargs." + k, "is already an input tensor");
        kwargs[k] = v;
      }
      p["inputs"] = {{"args", args}, {"kwargs", kwargs}};
    }
    return p;
  } catch (const Refusal& r) {
    *error = r.text;
    return nullptr;
  }
}

namespace {

std::string shape_text(const json& shape) {
  std::string s;
  for (const auto& d : shape) s += (s.empty() ? "" : ", ") + d.dump();
  return s;
}

json tensor_fields(const std::string& name, const std::string& kind, const json& v) {
  json t = {{"name", name}, {"kind", kind}, {"use", true}, {"shape", shape_text(v.value("shape", json::array()))},
            {"dtype", v.value("dtype", "float32")}, {"requires_grad", v.value("requires_grad", false)}};
  const json g = v.value("generator", json::object());
  t["generator"] = g.value("kind", "normal");
  if (g.contains("value")) t["value"] = toml_inline_value(g["value"]);
  if (g.contains("low")) t["low"] = g["low"].dump();
  if (g.contains("high")) t["high"] = g["high"].dump();
  return t;
}

bool is_tensor(const json& v) { return v.is_object() && v.value("kind", "") == "tensor"; }

}  // namespace

json form_from_profile(const Profile& p, const ModelClass* cls) {
  json f = {{"name", p.name}, {"device", p.device}, {"mode", p.mode}, {"timeout_ms", std::to_string(p.timeout_ms)},
            {"seed", p.seed ? std::to_string(*p.seed) : ""}};
  if (p.factory) {
    std::string kw;
    for (const auto& [k, v] : p.factory->kwargs.items()) kw += k + " = " + toml_inline_value(v) + "\n";
    f["construct"] = "factory";
    f["factory"] = {{"file", p.factory->file}, {"callable", p.factory->callable}, {"kwargs", kw}};
  } else {
    f["construct"] = "init";
    json init = json::array();
    const json kwargs = p.init ? p.init->value("kwargs", json::object()) : json::object();
    for (const auto& [k, v] : kwargs.items()) init.push_back({{"name", k}, {"value", toml_inline_value(v)}});
    f["init"] = init;
  }
  json tensors = json::array();
  std::string extra;
  if (p.input_factory) {
    f["inputs_from"] = "example";
    f["example"] = {{"file", p.input_factory->file}, {"callable", p.input_factory->callable}};
  } else if (p.inputs) {
    f["inputs_from"] = "tensors";
    std::vector<const Param*> positional;
    if (cls && cls->forward)
      for (const auto& q : cls->forward->params)
        if ((q.kind == "pos" || q.kind == "posonly") && q.name != "self") positional.push_back(&q);
    const json args = p.inputs->value("args", json::array());
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string name = i < positional.size() ? positional[i]->name : "input" + std::to_string(i);
      if (is_tensor(args[i])) tensors.push_back(tensor_fields(name, "pos", args[i]));
    }
    const json kwargs = p.inputs->value("kwargs", json::object());
    for (const auto& [k, v] : kwargs.items()) {
      if (is_tensor(v))
        tensors.push_back(tensor_fields(k, "kwonly", v));
      else
        extra += k + " = " + toml_inline_value(v) + "\n";
    }
  }
  f["tensors"] = tensors;
  f["forward_kwargs"] = extra;
  return f;
}

}  // namespace tvis::profiles
