// capture_recheck.cpp: recheck_capture_evidence() (capture_recheck.h).
#include "capture_recheck.h"

#include <nlohmann/json.hpp>

#include "tvis/profiles/file_identity.h"

std::string recheck_capture_evidence(const std::string& evidence_json) {
  using nlohmann::json;
  const json a = json::parse(evidence_json, nullptr, false);
  tvis::profiles::Freshness f;
  if (a.is_array()) {
    std::vector<tvis::profiles::FileIdentity> ids;
    for (const auto& j : a) {
      if (!j.is_object()) continue;
      tvis::profiles::FileIdentity id;
      id.role = j.value("role", ""), id.path = j.value("path", ""), id.name = j.value("name", "");
      id.present = j.value("present", false), id.resolved = j.value("resolved", "");
      id.size = j.value("size", uint64_t{0}), id.mtime_ns = j.value("mtime_ns", int64_t{0});
      id.inode = j.value("inode", uint64_t{0}), id.xxh64 = j.value("xxh64", uint64_t{0});
      ids.push_back(std::move(id));
    }
    f = tvis::profiles::recheck_files(ids);
  }
  return json{{"checked", f.checked}, {"stale", f.stale}, {"reasons", f.reasons}}.dump();
}
