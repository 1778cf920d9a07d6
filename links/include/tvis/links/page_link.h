// page_link.h: the one mapping from a finding's position (analysis::Position:
// what it is about, in the training's terms) to where the viewer shows it.
// `tvis diagnose` / `tvis diff` (--json's `link` and `position`, the text
// output's `open:` flags), `tvis mcp` and the viewer's Diagnosis and Compare
// pages all go through it, so a link means the same page everywhere.
//
//   subject        page
//   Run, Call,     Replay (the default page: the call at its step and phase)
//   Batch
//   Loss           Loss
//   Parameter,     Weights
//   OptimizerStep
//
// The link keys are the viewer's (docs/viewer_test_surface.md): page, then
// step, phase, module, param where the position sets them. The tensor role
// picks no page and is no link key.
#pragma once

#include <string>

#include "tvis/analysis/finding.h"

namespace tvis::links {

/// The page that shows a position about `subject` (one of page_names.h); a
/// Subject added without a page here does not compile (links/CMakeLists.txt).
const char* page_of(analysis::Subject subject);

/// A position as the viewer's link keys; empty strings and step -1 are left out.
struct PageLink {
  std::string page;
  int step = -1;
  std::string phase, module, param;
};

PageLink page_link(const analysis::Position& where);

/// The link as URL query keys, as the viewer reads them from its address
/// ("page=Replay&step=0&phase=forward&module=layer1.0.conv2"); characters
/// other than letters, digits and -._~:/ are percent-encoded.
std::string link_query(const PageLink& link);
inline std::string link_query(const analysis::Position& where) { return link_query(page_link(where)); }

/// The link as tvis-view's / tvis open's flags ("--page Weights --step 1 --param fc.weight").
std::string link_flags(const PageLink& link);
inline std::string link_flags(const analysis::Position& where) { return link_flags(page_link(where)); }

}  // namespace tvis::links
