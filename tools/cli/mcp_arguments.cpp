#include "mcp_arguments.h"

#include <cmath>
#include "tvis/json/safe.h"

namespace tvis::cli::mcp {

namespace {

using nlohmann::json;

bool has_type(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  if (type == "number") return v.is_number();
  // JSON Schema's integer: any number with no fractional part (5 and 5.0).
  if (type == "integer") return v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>());
  return false;
}

std::string type_name(const json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  return v.type_name();
}

std::string shown(const json& v) {
  std::string s = tvis::safe_json::text(v);
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

}  // namespace

std::string check_arguments(const json& schema, const json& value, const std::string& where) {
  if (!schema.is_object()) return "";
  if (schema.contains("type")) {
    const json& t = schema["type"];
    bool any = false;
    std::string names;
    for (const auto& one : t.is_array() ? t : json::array({t})) {
      if (!one.is_string()) continue;
      any = any || has_type(value, one.get<std::string>());
      names += (names.empty() ? "" : " or ") + one.get<std::string>();
    }
    if (!any) return where + ": must be " + names + ", not " + type_name(value);
  }
  if (schema.contains("enum") && schema["enum"].is_array()) {
    bool found = false;
    for (const auto& e : schema["enum"]) found = found || e == value;
    if (!found) return where + ": " + shown(value) + " is not one of " + shown(schema["enum"]);
  }
  if (value.is_number()) {
    const double x = value.get<double>();
    if (schema.contains("minimum") && schema["minimum"].is_number() && x < schema["minimum"].get<double>())
      return where + ": " + shown(value) + " is less than the minimum " + shown(schema["minimum"]);
    if (schema.contains("maximum") && schema["maximum"].is_number() && x > schema["maximum"].get<double>())
      return where + ": " + shown(value) + " is more than the maximum " + shown(schema["maximum"]);
  }
  if (value.is_string() && schema.contains("minLength") && schema["minLength"].is_number_integer() &&
      static_cast<long long>(value.get_ref<const std::string&>().size()) < schema["minLength"].get<long long>())
    return where + ": must have at least " + shown(schema["minLength"]) + " characters";
  if (value.is_object()) {
    const json empty = json::object();
    const json& props = schema.contains("properties") && schema["properties"].is_object() ? schema["properties"] : empty;
    if (schema.contains("required") && schema["required"].is_array())
      for (const auto& r : schema["required"])
        if (r.is_string() && !value.contains(r.get<std::string>())) return where + ": " + r.get<std::string>() + " is required";
    for (const auto& [key, v] : value.items()) {
      if (props.contains(key)) {
        std::string e = check_arguments(props[key], v, where + "." + key);
        if (!e.empty()) return e;
      } else if (schema.contains("additionalProperties") && schema["additionalProperties"] == false) {
        std::string known;
        for (const auto& [k, _] : props.items()) known += (known.empty() ? "" : ", ") + k;
        return where + ": unknown argument '" + key + "'" + (known.empty() ? " (this tool takes none)" : " (known: " + known + ")");
      }
    }
  }
  return "";
}

}  // namespace tvis::cli::mcp
