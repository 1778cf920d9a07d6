// capture_evidence.h: a capture run under its pinned interpreter, with the
// identities of what it depended on (docs/profiles.md "Freshness").
//
// The evidence of a capture is the conservative set of files whose change
// could change its result: the interpreter (the pin's file), tensorviz.toml,
// .tensorviz-choices.toml and the user config (each also when absent: its
// appearance counts), and the workspace source files the worker had loaded
// as modules by the end (its `modules` line). The identities are taken
// BEFORE the worker starts (every workspace source the catalog read), so a
// file edited while the capture runs differs from what was recorded and the
// recheck right after the capture marks it stale.
//
// Contracts of run_pinned_capture():
//   - the pin is rechecked right before the worker starts and right after
//     it exits, and the worker's own reported Python version is compared
//     with the pinned one; a difference refuses: `refused`, stage
//     "interpreter", kind "interpreter" ("interpreter changed between plan
//     and run: ..."), exit 2, nothing certified;
//   - a capture whose evidence is stale right after it ran is never
//     certified: ok false, stage "freshness", kind "stale", one diagnostic
//     naming every changed file; its graph is kept.
#pragma once

#include <string>
#include <vector>

#include "tvis/profiles/capture.h"
#include "tvis/profiles/interpreter_pin.h"

namespace tvis::profiles {

/// The identities before a capture: the pin's file, the configuration files
/// and every workspace source of the catalog.
std::vector<FileIdentity> evidence_before(const Catalog& c, const InterpreterPin& pin);

/// The capture's evidence: the non-source entries of `before`, and each
/// imported file (from `before` when it is there, else identified now).
std::vector<FileIdentity> evidence_after(const std::vector<FileIdentity>& before,
                                         const std::vector<std::string>& imported, const std::string& root);

/// run_capture() under `pin`, its evidence recorded and rechecked.
Capture run_pinned_capture(const InterpreterPin& pin, const Catalog& catalog, const CaptureJob& job,
                           const std::string& log_path);

}  // namespace tvis::profiles
