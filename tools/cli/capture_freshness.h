// capture_freshness.h: a saved profile capture (a `tvis graph` run) against
// the files it depended on now (docs/profiles.md "Freshness"): whether its
// evidence still holds, which earlier run was made for the same request,
// and what `tvis inspect`, `tvis open` and `tvis graph` report about it.
//
// Contracts:
//   - Every check really rechecks: each recorded identity is stat'ed and
//     hashed again (profiles/file_identity.h); nothing is cached.
//   - A run without recorded evidence (a training run, a capture made
//     before freshness was recorded) is `checked: false`, never "fresh".
//   - "The same request" is the same workspace and the same words asked
//     (MODULE:CLASS and --profile as given), so a refused recapture can
//     still find the run it keeps.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capture_request.h"
#include "tvis/profiles/file_identity.h"

namespace tvis::cli {

/// The label of a graph kept because its recapture was refused or did not start.
constexpr const char* kRetainedLabel = "Previous measurements retained";

/// {target, profile} as the user asked (either may be "").
nlohmann::json asked_json(const CaptureRequestArgs& a);

/// What a capture run records as its request: {workspace, asked, model,
/// profile, source, job, python, timeout_ms}.
nlohmann::json request_json(const CaptureRequestArgs& a, const PreparedCapture& p);

struct SavedCapture {
  std::string run_file;  // "" when none was found
  std::string error;     // the run could not be read as a capture
  nlohmann::json request, report;  // null when not recorded
  std::vector<profiles::FileIdentity> evidence;
  bool recorded = false;  // the run holds evidence (made by a tvis that records it)
  profiles::RecheckScope scope;  // where its recheck may read: the run's own workspace (file_identity.h)
};

/// The ProfileCapture of `run_file`.
SavedCapture read_saved_capture(const std::string& run_file);

/// The newest capture under the runs folder `runs` whose request has this
/// workspace and `asked`; run_file "" when there is none (at most the 64
/// newest graph runs are read).
SavedCapture previous_capture(const std::string& runs, const std::string& workspace, const nlohmann::json& asked);

/// The recheck of a saved capture within s.scope (checked false when nothing was recorded).
profiles::Freshness saved_freshness(const SavedCapture& s);

/// Whether `s` may be reopened as is for `request` (request_json()): made
/// for the same job in the same interpreter, its evidence unchanged. When
/// not, `why` says what differs (a stale file, another job, another python).
bool reusable(const SavedCapture& s, const nlohmann::json& request, std::string* why);

/// `tvis graph --json` for a saved capture reopened as is: its recorded
/// report, with `reopened` true, `run`, and the `freshness` just rechecked.
nlohmann::json reopened_json(const SavedCapture& s);

/// Adds `retained` {run, label: kRetainedLabel, freshness} to the JSON of a
/// refused or unstarted recapture, and says it in `text`; no-op without `s`.
void add_retained(const SavedCapture& s, nlohmann::json* json, std::string* text);

/// {checked, stale, reasons} of `run_file` (a capture or any other run):
/// what `tvis inspect --json` adds as `freshness` and `tvis open` serves.
nlohmann::json run_freshness_json(const std::string& run_file);

}  // namespace tvis::cli
