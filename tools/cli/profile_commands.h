// profile_commands.h: the work of `tvis profiles`, `tvis check` and `tvis
// graph`, shared by their command files (which print it) and by `tvis mcp`'s
// tools of the same names (which return it). One request in, one outcome
// out: the command's exit status, its `--json` object, its text for people
// and its stderr lines. docs/profiles.md lists the JSON keys and fixes ok,
// profile, stage, outputs, diagnostics (`tvis check`'s "`--json`").
//
// Contracts:
//   - Nothing here prints; the caller decides where each part goes.
//   - `json` is always an object, refusals included (ok false, stage
//     "config" | "request", one diagnostic per problem), so a front end
//     that returns JSON never has to invent one.
//   - exit_code is the command's: profiles 0 valid / 2 invalid; check and
//     graph 0 ok / 1 setup or forward failed / 2 refused.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capture_request.h"

namespace tvis::cli {

struct CommandOutcome {
  int exit_code = 0;
  nlohmann::json json = nlohmann::json::object();  // the `--json` object
  std::string text;                                 // stdout without --json (ends in a newline)
  std::vector<std::string> problems;                // stderr lines, without the "tvis <cmd>: " prefix
};

/// `tvis profiles`: the catalog of `workspace` ("" = found from the current
/// folder), sources read by `python` ("" = the likely interpreter, not run).
CommandOutcome profiles_outcome(const std::string& workspace, const std::string& python);

/// `tvis check`: one forward in the worker, its log at `log` ("" = the
/// default log path).
CommandOutcome check_outcome(const CaptureRequestArgs& request, const std::string& log);

/// `tvis graph`: the forward captured and written as a run under `out` (""
/// = <workspace>/tvis_runs); `argv` is the command line the run records.
/// The JSON adds `run` (the run.tvis path) and `layout` (engine or null).
/// The refusal `tvis graph` / `tvis check` answer for a request refused
/// before it was prepared (exit 2; the usual four keys, `problem` as its
/// diagnostic).
CommandOutcome refused_outcome(const CaptureRequestArgs& request, const std::string& problem);

CommandOutcome graph_outcome(const CaptureRequestArgs& request, const std::string& out,
                             const std::vector<std::string>& argv);

/// The `tvis graph` command line equivalent to `request` (what a run made
/// without a shell, by `tvis mcp`, records as its argv).
std::vector<std::string> graph_argv(const CaptureRequestArgs& request);

/// `tvis check` and `tvis graph` at a terminal: the first SIGINT, SIGTERM or
/// SIGHUP cancels the capture (its worker is killed; graph writes no run and
/// keeps the previous one, "Previous measurements retained"; exit 130); a
/// second one ends tvis at once.
void cancel_capture_on_stop_signals();

}  // namespace tvis::cli
