// capture_recheck.cpp: recheck_capture_evidence() (capture_recheck.h).
#include "capture_recheck.h"

#include <nlohmann/json.hpp>

std::string recheck_capture_evidence(const std::string& evidence_json, const tvis::profiles::RecheckScope& scope) {
  using nlohmann::json;
  const json a = json::parse(evidence_json, nullptr, false);
  tvis::profiles::Freshness f;
  if (a.is_array()) {
    std::vector<tvis::profiles::FileIdentity> ids;
    for (const auto& j : a)
      if (j.is_object()) ids.push_back(tvis::profiles::identity_from_json(j));
    f = tvis::profiles::recheck_files_within(ids, scope);
  }
  return tvis::profiles::freshness_json(f).dump();
}
