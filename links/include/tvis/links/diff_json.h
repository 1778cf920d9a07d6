// diff_json.h: one differing tensor (run_diff.h's TensorDelta) as `tvis diff
// --json` prints its `first` and `largest` rows, the mcp tool `diff` returns
// them and the viewer's Compare page reports its first divergence
// (the page of `link` and `position` from page_link.h)
// (docs/diagnose.md):
//   {step, phase, event, module, what, max_abs, role, name, statistic, a, b,
//    delta, link "page=..&step=..", position {page, step, ...}}
// Header-only, so the analysis library itself needs no JSON.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>

#include "tvis/analysis/run_diff.h"
#include "tvis/links/finding_json.h"

namespace tvis::links {

/// The largest |a - b| of the compared statistics (min, max, mean, ...): a
/// lower bound of the largest elementwise difference (diff reads statistics,
/// never values).
inline double delta_max_abs(const analysis::TensorDelta& d) { return std::fabs(d.a - d.b); }

inline nlohmann::json delta_json(const analysis::TensorDelta& d) {
  const std::string module = d.module.empty() ? d.name : d.module;
  const auto text_or_null = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return {{"step", d.step},
          {"phase", text_or_null(d.phase)},
          {"event", d.event >= 0 ? nlohmann::json(d.event) : nlohmann::json(nullptr)},
          {"module", text_or_null(module)},
          {"what", d.what},
          {"max_abs", delta_max_abs(d)},
          {"role", d.role},
          {"name", d.name},
          {"statistic", d.statistic},
          {"a", d.a},
          {"b", d.b},
          {"delta", d.delta},
          {"link", link_query(d.where)},
          {"position", position_json(d.where)}};
}

}  // namespace tvis::links
