// capture_json() / capture_text(): how `tvis check` reports a Capture
// (docs/profiles.md, `tvis check`'s "`--json`", pins the JSON keys ok, profile, stage,
// outputs, diagnostics: front ends and `tvis mcp`'s outputSchema rely on them).
#include "tvis/profiles/capture.h"
#include "tvis/profiles/shape_diagnostics.h"

namespace tvis::profiles {

namespace {

using nlohmann::json;

json operand_json(const Operand& o) { return {{"name", o.name}, {"shape", o.shape}, {"dtype", o.dtype}}; }

json operands_json(const std::vector<Operand>& ops) {
  json a = json::array();
  for (const auto& o : ops) a.push_back(operand_json(o));
  return a;
}

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::string operands_text(const std::vector<Operand>& ops) {
  std::string s;
  for (const auto& o : ops) s += (s.empty() ? "" : ", ") + o.name + " " + shape_text(o.shape) + " " + o.dtype;
  return s;
}

}  // namespace

json capture_json(const Capture& c) {
  json j = {{"ok", c.ok}, {"profile", or_null(c.profile)}, {"model", c.model}, {"source", c.source},
            {"stage", c.ok ? json(nullptr) : json(c.stage)}, {"outputs", json::array()}, {"inputs", operands_json(c.inputs)},
            {"diagnostics", json::array()}, {"label", or_null(c.label)}, {"automatic", or_null(c.automatic)},
            {"log", or_null(c.log)}, {"partial", c.partial}, {"truncated", c.truncated}, {"nodes", c.nodes.size()},
            {"timeout_ms", c.timeout_ms}, {"seconds", c.seconds}, {"python", c.python},
            {"torch", or_null(c.torch_version)}, {"jax", or_null(c.jax_version)}};
  j["interpreter"] = c.interpreter_origin.empty() ? json(nullptr)
                                                 : json{{"path", c.python}, {"origin", c.interpreter_origin},
                                                        {"version", c.interpreter_version}};
  j["refused"] = c.refused;
  j["cancelled"] = c.cancelled;
  j["stale"] = c.freshness.stale;
  j["freshness"] = freshness_json(c.freshness);
  j["evidence"] = c.evidence.size();
  for (const auto& o : c.outputs) j["outputs"].push_back({{"name", o.name}, {"shape", o.shape}, {"dtype", o.dtype}});
  for (const auto& d : c.diagnostics) {
    json dj = {{"kind", d.kind}, {"message", d.message}, {"operands", operands_json(d.operands)}};
    if (!d.field.empty()) dj["field"] = d.field;
    if (!d.parameters.is_null()) dj["parameters"] = d.parameters;
    j["diagnostics"].push_back(std::move(dj));
  }
  return j;
}

std::string capture_text(const Capture& c) {
  std::string who = c.profile.empty() ? c.model + " (" + c.source + ")" : c.profile + " (" + c.model + ")";
  std::string out;
  if (c.ok) {
    out = "ok: " + who + "\n";
    if (!c.automatic.empty()) out += "  automatic input: " + c.automatic + "\n";
    for (const auto& o : c.outputs) out += "  " + o.name + " " + shape_text(o.shape) + " " + o.dtype + "\n";
    return out;
  }
  out = "failed: " + who + " at " + c.stage + (c.label.empty() ? "" : " [" + c.label + "]") + "\n";
  if (!c.automatic.empty()) out += "  automatic input: " + c.automatic + "\n";
  for (const auto& d : c.diagnostics) {
    out += "  " + d.kind + ": " + d.message + "\n";
    if (!d.operands.empty()) out += "    operands: " + operands_text(d.operands) + "\n";
  }
  if (!c.log.empty()) out += "  log: " + c.log + "\n";
  return out;
}

}  // namespace tvis::profiles
