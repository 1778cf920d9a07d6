// finding_json.h: one finding as `tvis diagnose --json`, the mcp tool
// `diagnose` and the viewer's Diagnosis state() print it (docs/diagnose.md):
//   {kind, severity, step, phase, module, param (null when not known),
//    message, evidence {key: number | text}, link "page=..&step=..",
//    position {page, step, phase, module, param} (the link as an object)}
// Header-only, so the analysis library itself needs no JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "tvis/analysis/finding.h"

namespace tvis::analysis {

/// The position as the viewer's link object: page, then the keys that are set.
inline nlohmann::json position_json(const Position& w) {
  nlohmann::json j = {{"page", w.page}};
  if (w.step >= 0) j["step"] = w.step;
  if (!w.phase.empty()) j["phase"] = w.phase;
  if (!w.module.empty()) j["module"] = w.module;
  if (!w.param.empty()) j["param"] = w.param;
  return j;
}

inline nlohmann::json finding_json(const Finding& f) {
  nlohmann::json evidence = nlohmann::json::object();
  for (const Evidence& e : f.evidence) evidence[e.key] = e.text.empty() ? nlohmann::json(e.number) : nlohmann::json(e.text);
  const auto text_or_null = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return {{"kind", f.kind},
          {"severity", severity_name(f.severity)},
          {"step", f.where.step >= 0 ? nlohmann::json(f.where.step) : nlohmann::json(nullptr)},
          {"phase", text_or_null(f.where.phase)},
          {"module", text_or_null(f.where.module)},
          {"param", text_or_null(f.where.param)},
          {"message", f.message},
          {"evidence", evidence},
          {"link", link_query(f.where)},
          {"position", position_json(f.where)}};
}

}  // namespace tvis::analysis
