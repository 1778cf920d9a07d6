// capture_recheck.h: tvis-view's AppOptions::recheck_files (app.h): the
// evidence of a profile capture, as the Graph page hands it over (a JSON
// array of recorded file identities), rechecked on this machine's files
// (profiles/file_identity.h: stat and xxh64 of each) into {checked, stale,
// reasons}. Malformed evidence is {checked: false}.
#pragma once

#include <string>

std::string recheck_capture_evidence(const std::string& evidence_json);
