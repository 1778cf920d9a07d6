// capture_request.h: what `tvis check` and `tvis graph` share before the
// worker runs: the workspace, its catalog (the whole tensorviz.toml
// validated), the request resolved (resolution.h) to one worker job, and the
// interpreter (interpreter_resolver.h, as for `tvis run`, pinned; it must
// import torch). Any refusal is exit 2 with the reason; an invalid
// configuration prints every problem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/profiles/capture.h"
#include "tvis/profiles/interpreter_pin.h"

namespace tvis::cli {

struct CaptureRequestArgs {
  std::string target;  // MODULE:CLASS, or ""
  std::string profile, workspace, python;
  /// tvis graph: capture even when the saved run of the same request is
  /// unchanged (capture_freshness.h); without it, that run is reopened as is.
  bool recapture = false;
  /// > 0: the forward's limit instead of the profile's limits.timeout_ms (or
  /// the automatic limit); it must lie in the bounds of limits.timeout_ms.
  int64_t timeout_ms = 0;
  std::string timeout_setting = "--timeout-ms";  // how messages name timeout_ms
};

struct PreparedCapture {
  int exit_code = 0;                  // 2: refused, `problems` say why
  std::vector<std::string> problems;  // one line each
  std::vector<profiles::Problem> config_problems;  // when the configuration is invalid (each names its field)
  profiles::Catalog catalog;
  profiles::CaptureJob job;
  std::string python;
  profiles::InterpreterPin pin;  // `python` pinned (run the job with profiles::run_pinned_capture)
};

PreparedCapture prepare_capture(const CaptureRequestArgs& a);

/// The `--json` object of a refused request: ok false, stage "config" (an
/// invalid file: one diagnostic per problem, with its field) or "request".
nlohmann::json refusal_json(const CaptureRequestArgs& a, const PreparedCapture& p);

/// ${XDG_CACHE_HOME:-~/.cache}/tvis/logs/<command>-<UTC stamp>-<pid>.log (folders created);
/// "" when no folder can be made.
std::string default_log_path(const std::string& command);

}  // namespace tvis::cli
