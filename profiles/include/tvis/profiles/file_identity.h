// file_identity.h: what a file was when a profile capture depended on it
// (the interpreter, tensorviz.toml, the workspace sources the worker
// imported), and the recheck that says whether it still is. The freshness
// rule of docs/profiles.md "Freshness" is written here once: a file is
// unchanged when it is still there (or still absent), at the same resolved
// path, with the same size and the same xxh64 of its bytes. mtime_ns and
// inode are recorded (the interpreter pin compares them too) but a touched
// file with the same bytes is not "changed" for freshness: a checkout that
// rewrites identical files keeps a capture fresh.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tvis::profiles {

struct FileIdentity {
  std::string role;   // "interpreter", "config", "choices", "user_config", "source"
  std::string path;   // absolute, as named (the recheck resolves it again)
  std::string name;   // how reasons name it: workspace-relative for sources, else the path
  bool present = false;  // false: absent when captured (its appearance makes the capture stale)
  std::string resolved;  // realpath when present
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t inode = 0;
  uint64_t xxh64 = 0;  // of the whole content (seed 0)
};

/// The identity of `path` now; `present` false when it does not exist, is
/// not a regular file (after symlinks) or cannot be read to the end.
FileIdentity identify_file(const std::string& path, const std::string& role, const std::string& name);

/// "" when `then` still holds, else the reason in words
/// ("audit_models.py changed", "tensorviz.toml was removed", "... appeared").
std::string file_change(const FileIdentity& then);

struct Freshness {
  bool checked = false;              // false: nothing was recorded to check against
  bool stale = false;
  std::vector<std::string> reasons;  // one per changed file, in the recorded order
};

/// Rechecks every identity (all of them, so every change is named).
Freshness recheck_files(const std::vector<FileIdentity>& identities);

// JSON (file_identity_json.cpp, in tvis_profiles only; tvis_file_identity has no JSON).
nlohmann::json identity_json(const FileIdentity& f);
FileIdentity identity_from_json(const nlohmann::json& j);
/// {checked, stale, reasons}: what state().view and the CLI report.
nlohmann::json freshness_json(const Freshness& f);

}  // namespace tvis::profiles
