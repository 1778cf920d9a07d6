// worker_lines.cpp: the worker's lines into a Capture, every field type-checked (worker_lines.h).
#include "worker_lines.h"

#include "tvis/json/safe.h"
#include "tvis/profiles/shape_diagnostics.h"

namespace tvis::profiles::detail {

namespace {

using nlohmann::json;

// Typed fields: a missing field or one of another type is the fallback, never an exception.
std::string str(const json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}
bool boolean(const json& j, const char* key) {
  if (!j.is_object()) return false;
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}
uint32_t id(const json& j, const char* key) {
  if (!j.is_object()) return 0;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return 0;
  const int64_t v = it->is_number_unsigned() ? int64_t(std::min<uint64_t>(it->get<uint64_t>(), UINT32_MAX)) : it->get<int64_t>();
  return v < 0 || v > int64_t(UINT32_MAX) ? 0 : uint32_t(v);
}
const json& field(const json& j, const char* key, json::value_t type) {
  static const json kNull = nullptr;
  if (!j.is_object()) return kNull;
  const auto it = j.find(key);
  return it != j.end() && it->type() == type ? *it : kNull;
}
const json& array(const json& j, const char* key) { return field(j, key, json::value_t::array); }
const json& object(const json& j, const char* key) {
  const json& o = field(j, key, json::value_t::object);
  static const json kEmpty = json::object();
  return o.is_object() ? o : kEmpty;
}
// A dim: a non-negative integer below 2^40, else unknown (-1): no arithmetic on it (times an option
// below 2^20, shape_diagnostics.cpp) can overflow.
int64_t dim(const json& d) {
  if (d.is_number_unsigned()) return d.get<uint64_t>() < (uint64_t(1) << 40) ? int64_t(d.get<uint64_t>()) : -1;
  if (d.is_number_integer()) return d.get<int64_t>() >= 0 && d.get<int64_t>() < (int64_t(1) << 40) ? d.get<int64_t>() : -1;
  return -1;
}
bool integer(const json& j, const char* key, int64_t* out) {
  if (!j.is_object()) return false;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer() || it->is_number_unsigned()) {
    if (it != j.end() && it->is_number_unsigned() && it->get<uint64_t>() <= uint64_t(INT64_MAX))
      return *out = int64_t(it->get<uint64_t>()), true;
    return false;
  }
  return *out = it->get<int64_t>(), true;
}

std::vector<int64_t> shape_of(const json& j) {
  std::vector<int64_t> s;
  if (j.is_array())
    for (const auto& d : j) s.push_back(dim(d));
  return s;
}

Operand operand_of(const json& j) { return {str(j, "name"), shape_of(array(j, "shape")), str(j, "dtype")}; }

std::vector<Operand> operands_of(const json& j) {
  std::vector<Operand> out;
  if (j.is_array())
    for (const auto& o : j) out.push_back(operand_of(o));
  return out;
}

CaptureNode node_of(const json& j) {
  CaptureNode n;
  n.id = id(j, "id");
  n.op = str(j, "op");
  n.module = str(j, "module");
  n.failed = boolean(j, "failed");
  n.outputs = operands_of(array(j, "outputs"));
  for (const auto& e : array(j, "inputs"))
    n.inputs.push_back({id(e, "from"), str(e, "name"), shape_of(array(e, "shape")), str(e, "dtype")});
  return n;
}

Diagnostic diagnostic(const std::string& kind, const std::string& message) {
  Diagnostic d;
  d.kind = kind;
  d.message = message;
  return d;
}

// The forward failed inside a watched operator: diagnostics from its operands only.
void operator_failure(Capture& c, const json& f, const std::string& exception_type) {
  std::vector<RecordedOperand> ops;
  for (const auto& o : array(f, "operands")) {
    RecordedOperand r{operand_of(o)};
    if (integer(o, "min", &r.min) && integer(o, "max", &r.max)) r.has_range = true;
    ops.push_back(std::move(r));
  }
  const std::string op = str(f, "op");
  const std::string module = str(f, "module");
  c.failed_node = id(f, "node");
  auto found = operator_diagnostics(op, ops, object(f, "options"));
  const std::string where = op + (module.empty() ? "" : " in " + module);
  for (auto& d : found) {
    d.message = where + ": " + d.message;
    c.diagnostics.push_back(std::move(d));
  }
  if (!found.empty()) return;
  Diagnostic d = diagnostic("forward", where + " raised " + exception_type +
                                           "; its operands break no shape or dtype constraint tvis checks (see the log)");
  for (const auto& o : ops) d.operands.push_back(o.operand);
  c.diagnostics.push_back(std::move(d));
}

// `parameters` of a binding failure: {missing, unexpected, twice, extra_positional: [names]}, signature text.
json parameters_of(const json& p) {
  json out = json::object();
  if (!p.is_object()) return out;
  for (const char* key : {"missing", "unexpected", "twice"}) {
    if (!array(p, key).is_array()) continue;
    json names = json::array();
    for (const auto& n : array(p, key))
      if (n.is_string()) names.push_back(n);
    out[key] = std::move(names);
  }
  const auto it = p.find("extra_positional");
  if (it != p.end() && (it->is_number_integer() || it->is_array())) {
    json v = *it;
    if (v.is_array()) {
      json names = json::array();
      for (const auto& n : v)
        if (n.is_string() || n.is_number_integer()) names.push_back(n);
      v = std::move(names);
    }
    out["extra_positional"] = std::move(v);
  }
  if (p.contains("signature") && p["signature"].is_string()) out["signature"] = p["signature"];
  return out;
}

}  // namespace

bool WorkerLineReader::operator()(const std::string& line) {
  json j = safe_json::parse(line);
  if (j.is_discarded() || !j.is_object()) return ++bad_lines, false;
  const std::string t = str(j, "t");
  if (t == "ready") {
    c.python_version = str(j, "python");
    c.torch_version = str(j, "torch");
    c.jax_version = str(j, "jax");
    return true;
  }
  if (t == "stage") last_stage = str(j, "stage");
  else if (t == "node") c.nodes.push_back(node_of(j));
  else if (t == "truncated") c.truncated = true;
  else if (t == "modules") {
    for (const auto& f : array(j, "files"))
      if (f.is_string()) c.imported.push_back(f.get<std::string>());
  } else if (t == "inputs") {
    c.inputs = operands_of(array(j, "inputs"));
    c.automatic = str(j, "automatic", c.automatic);
  } else if (t == "result") {
    result = std::move(j);
  } else {
    ++bad_lines;
  }
  return false;
}

void read_worker_result(Capture& c, const json& r) {
  c.ok = boolean(r, "ok");
  c.stage = str(r, "stage");
  c.truncated = c.truncated || boolean(r, "truncated");
  c.outputs = operands_of(array(r, "outputs"));
  if (c.ok) return;
  const std::string kind = str(r, "kind", "setup");
  const std::string type = str(r, "exception_type", "an exception");
  if (kind == "operator" && object(r, "failure").size() > 0) {
    operator_failure(c, object(r, "failure"), type);
  } else if (kind == "assertion" || kind == "forward") {
    const std::string module = str(r, "module");
    c.diagnostics.push_back(diagnostic(kind, "forward raised " + type + (module.empty() ? "" : " in " + module) +
                                                 " (not a supported operator; the traceback is in the log)"));
  } else {
    static const char* const kKinds[] = {"setup", "binding", "timeout", "shape", "dtype", "index", "assertion", "forward"};
    bool known = false;
    for (const char* k : kKinds) known = known || kind == k;
    Diagnostic d = diagnostic(known ? kind : "setup", str(r, "message", "setup failed"));
    json params = parameters_of(field(r, "parameters", json::value_t::object));
    if (!params.empty()) d.parameters = std::move(params);
    c.diagnostics.push_back(std::move(d));
  }
}

}  // namespace tvis::profiles::detail
