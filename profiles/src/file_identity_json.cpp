// file_identity_json.cpp: FileIdentity and Freshness as JSON (file_identity.h);
// apart from file_identity.cpp so tvis_file_identity needs no JSON library.
#include "tvis/profiles/file_identity.h"

namespace tvis::profiles {

nlohmann::json identity_json(const FileIdentity& f) {
  return {{"role", f.role}, {"path", f.path}, {"name", f.name}, {"present", f.present}, {"resolved", f.resolved},
          {"size", f.size}, {"mtime_ns", f.mtime_ns}, {"inode", f.inode}, {"xxh64", f.xxh64}};
}

FileIdentity identity_from_json(const nlohmann::json& j) {
  FileIdentity f;
  if (!j.is_object()) return f;
  f.role = j.value("role", ""), f.path = j.value("path", ""), f.name = j.value("name", "");
  f.present = j.value("present", false), f.resolved = j.value("resolved", "");
  f.size = j.value("size", uint64_t{0}), f.mtime_ns = j.value("mtime_ns", int64_t{0});
  f.inode = j.value("inode", uint64_t{0}), f.xxh64 = j.value("xxh64", uint64_t{0});
  return f;
}

nlohmann::json freshness_json(const Freshness& f) {
  return {{"checked", f.checked}, {"stale", f.stale}, {"reasons", f.reasons}};
}

}  // namespace tvis::profiles
