// capture_recheck.h: tvis-view's AppOptions::recheck_files (app.h): the
// evidence of a profile capture, as the Graph page hands it over (a JSON
// array of recorded file identities), rechecked on this machine's files
// (profiles/file_identity.h: stat and xxh64 of each) into {checked, stale,
// reasons[, unchecked, why]}, reading only within `scope`: the workspace of
// what the user opened (a run file's evidence is not trusted to name what
// tvis-view reads). Malformed evidence is {checked: false}.
#pragma once

#include <string>

#include "tvis/profiles/file_identity.h"

std::string recheck_capture_evidence(const std::string& evidence_json, const tvis::profiles::RecheckScope& scope);
