// file_identity_json.cpp: FileIdentity and Freshness as JSON (file_identity.h).
// identity_from_json takes evidence from run files (hostile input): a
// missing or wrong-typed field is its default, never an exception.
#include <type_traits>

#include "tvis/profiles/file_identity.h"

namespace tvis::profiles {

namespace {

template <class T>
T field(const nlohmann::json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) return it->is_string() ? it->template get<std::string>() : fallback;
  else if constexpr (std::is_same_v<T, bool>) return it->is_boolean() ? it->template get<bool>() : fallback;
  else return it->is_number_integer() ? it->template get<T>() : fallback;
}

}  // namespace

nlohmann::json identity_json(const FileIdentity& f) {
  return {{"role", f.role}, {"path", f.path}, {"name", f.name}, {"present", f.present}, {"resolved", f.resolved},
          {"size", f.size}, {"mtime_ns", f.mtime_ns}, {"inode", f.inode}, {"xxh64", f.xxh64}};
}

FileIdentity identity_from_json(const nlohmann::json& j) {
  FileIdentity f;
  if (!j.is_object()) return f;
  f.role = field(j, "role", std::string()), f.path = field(j, "path", std::string());
  f.name = field(j, "name", std::string()), f.present = field(j, "present", false);
  f.resolved = field(j, "resolved", std::string()), f.size = field(j, "size", uint64_t{0});
  f.mtime_ns = field(j, "mtime_ns", int64_t{0}), f.inode = field(j, "inode", uint64_t{0});
  f.xxh64 = field(j, "xxh64", uint64_t{0});
  return f;
}

nlohmann::json freshness_json(const Freshness& f) {
  nlohmann::json j = {{"checked", f.checked}, {"stale", f.stale}, {"reasons", f.reasons}};
  if (!f.unchecked.empty()) j["unchecked"] = f.unchecked;
  if (!f.why.empty()) j["why"] = f.why;
  return j;
}

}  // namespace tvis::profiles
