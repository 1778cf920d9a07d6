// interpreter_resolver.h: the one read-only answer to "which Python does
// this command run in", shared by `tvis run`, `tvis check`, `tvis graph` and
// `tvis mcp` (docs/profiles.md "The interpreter"). In order, the first that
// is set decides:
//   1. --python PATH (always wins),
//   2. only for a workspace the user config lists in `[tool] trusted_workspaces`:
//      the workspace's remembered choice (`python` in .tensorviz-choices.toml),
//      then `[tool] python_path` of its tensorviz.toml,
//   3. `[tool] python_path` of the user config ($XDG_CONFIG_HOME/tvis/config.toml),
//   4. discovery (python_discovery.h: $TVIS_PYTHON, beside tvis, PATH, /usr/bin/python3).
// A workspace's files are outside input (a cloned repository): a program they
// name is never run unless the user trusted that workspace in their own
// config; an untrusted workspace's settings are listed in `ignored`.
// Contracts:
//   - Nothing is downloaded, installed or written; the chosen interpreter is
//     run once (the pin's probe: `-I`, cwd `/`, killed at kProbeLimitMs, so
//     no module of the current folder or the workspace runs), discovery's
//     candidates once each; a candidate whose probe times out refuses.
//   - A path set by 1-4 that does not exist, is not executable, does not run
//     as Python or (when torch is needed) cannot find torch refuses with a
//     message naming where it came from; it never falls through to the next
//     source (no silent switch of environments).
//   - The answer is pinned (interpreter_pin.h): the capture rechecks it
//     before and after the worker runs.
#pragma once

#include <string>
#include <vector>

#include "python_discovery.h"
#include "tvis/profiles/interpreter_pin.h"

namespace tvis::cli {

struct InterpreterRequest {
  std::string explicit_python;  // --python ("" = not given)
  std::string workspace_root;   // "" = no workspace: no remembered choice, no tensorviz.toml
  bool need_torch = true;       // false: any Python will do (source reading)
};

struct ResolvedInterpreter {
  profiles::InterpreterPin pin;  // pin.path: the interpreter; pin.origin: which source chose it
  std::string error;             // "" when resolved; else why it is refused (one line)
  std::vector<std::string> ignored;  // workspace settings not used: the workspace is not trusted (one line each)
  bool ok() const { return error.empty(); }
};

/// The interpreter for `r`, pinned; `search` is where discovery looks.
ResolvedInterpreter resolve_interpreter(const InterpreterRequest& r, const PythonSearch& search);

/// The interpreter resolve_interpreter() will most likely choose, found
/// without running anything (the first explicit setting, else
/// likely_python()): a guess for starting `tvis run`'s runner early; "" if none.
std::string likely_interpreter(const InterpreterRequest& r, const PythonSearch& search);

}  // namespace tvis::cli
