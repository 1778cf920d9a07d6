// finding_json.h: one finding as `tvis diagnose --json`, the mcp tool
// `diagnose` and the viewer's Diagnosis state() print it (docs/diagnose.md):
//   {kind, severity, step, phase, module, param (null when not known),
//    message, evidence {key: number | text}, link "page=..&step..",
//    position {page, step, phase, module, param} (the link as an object),
//    subject ("call", "parameter", ...: what the finding is about),
//    role (the tensor role judged, "output", "grad", ...; null when none)}
// The page comes from page_link.h. Header-only, so the library needs no JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "tvis/analysis/finding.h"
#include "tvis/links/page_link.h"

namespace tvis::links {

/// The link as the viewer's link object: page, then the keys that are set
/// (what tvis-view's {"link": ...} command takes).
inline nlohmann::json link_json(const PageLink& l) {
  nlohmann::json j = {{"page", l.page}};
  if (l.step >= 0) j["step"] = l.step;
  if (!l.phase.empty()) j["phase"] = l.phase;
  if (!l.module.empty()) j["module"] = l.module;
  if (!l.param.empty()) j["param"] = l.param;
  return j;
}
inline nlohmann::json position_json(const analysis::Position& w) { return link_json(page_link(w)); }

/// A tensor role as the schema names it, in snake case ("grad_output").
inline const char* role_key(analysis::Role r) {
  using analysis::Role;
  switch (r) {
    case Role::Input: return "input";
    case Role::Output: return "output";
    case Role::GradOutput: return "grad_output";
    case Role::GradInput: return "grad_input";
    case Role::Weight: return "weight";
    case Role::Grad: return "grad";
    case Role::Update: return "update";
    case Role::Batch: return "batch";
    case Role::Target: return "target";
    case Role::Logits: return "logits";
    case Role::TransformInput: return "transform_input";
    case Role::TransformOutput: return "transform_output";
    case Role::Attention: return "attention";
    case Role::GradCam: return "grad_cam";
    case Role::Embedding: return "embedding";
    case Role::EmbeddingTable: return "embedding_table";
    case Role::Other: return "other";
    case Role::LocalGrad: return "local_grad";
  }
  return "other";
}

inline nlohmann::json finding_json(const analysis::Finding& f) {
  nlohmann::json evidence = nlohmann::json::object();
  for (const analysis::Evidence& e : f.evidence)
    evidence[e.key] = e.text.empty() ? nlohmann::json(e.number) : nlohmann::json(e.text);
  const auto text_or_null = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  const PageLink link = page_link(f.where);
  return {{"kind", f.kind},
          {"severity", analysis::severity_name(f.severity)},
          {"step", f.where.step >= 0 ? nlohmann::json(f.where.step) : nlohmann::json(nullptr)},
          {"phase", text_or_null(link.phase)},
          {"module", text_or_null(f.where.module)},
          {"param", text_or_null(f.where.param)},
          {"message", f.message},
          {"evidence", evidence},
          {"link", link_query(link)},
          {"position", link_json(link)},
          {"subject", analysis::subject_name(f.where.subject)},
          {"role", f.where.role ? nlohmann::json(role_key(*f.where.role)) : nlohmann::json(nullptr)}};
}

}  // namespace tvis::links
