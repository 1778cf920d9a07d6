// catalog.h: everything `tvis profiles` reports, built once: the workspace,
// its validated tensorviz.toml (including the checks that need the sources:
// the model's file or __init__.py defines the class, a factory file defines
// its top-level callable), the model classes found, and what each request
// (every class, every profile) resolves to. Front ends (tvis profiles, and
// issue 17's check, graph and mcp) build one and read it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tvis/profiles/choices.h"
#include "tvis/profiles/config.h"
#include "tvis/profiles/model_classes.h"
#include "tvis/profiles/resolution.h"
#include "tvis/profiles/source_facts.h"
#include "tvis/profiles/workspace.h"

namespace tvis::profiles {

struct RequestResult {
  Request request;
  Resolution resolution;
};

struct Catalog {
  Workspace workspace;
  Config config;
  SourceFacts sources;
  std::vector<ModelClass> classes;
  std::vector<std::string> notices;  // source files that do not parse, declarations of no class
  Choices choices;
  std::vector<RequestResult> requests;
  /// 0: the configuration is valid (an absent file is valid); 2: not.
  int exit_code() const;
};

/// Builds the catalog of `workspace` reading sources with `python`.
Catalog build_catalog(const Workspace& workspace, const std::string& python);

/// `tvis profiles --json` (docs/profiles.md lists the keys).
nlohmann::json catalog_json(const Catalog& c);
/// `tvis profiles` for people: profiles, classes, requests, then problems.
std::string catalog_text(const Catalog& c);

}  // namespace tvis::profiles
