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
/// not a regular file (after symlinks) or cannot be read to the end. The
/// file is opened non-blocking and its type checked on the open descriptor.
FileIdentity identify_file(const std::string& path, const std::string& role, const std::string& name);

/// "" when `then` still holds, else the reason in words
/// ("audit_models.py changed", "tensorviz.toml was removed", "... appeared").
std::string file_change(const FileIdentity& then);

/// file_change() reading at most `max_bytes`: a larger file counts as not
/// readable (so a file that grew past the bound was "removed" or "changed").
std::string file_change_within(const FileIdentity& then, uint64_t max_bytes);

struct Freshness {
  bool checked = false;              // false: nothing was recorded (or may be read) to check against
  bool stale = false;
  std::vector<std::string> reasons;  // one per changed file, in the recorded order
  std::vector<std::string> unchecked;  // scoped rechecks: each file left alone, with why
  std::string why;                   // checked false: why nothing was checked ("" when nothing was recorded)
};

/// Rechecks every identity (all of them, so every change is named). The
/// capture's own recheck: the files are the ones it just identified.
Freshness recheck_files(const std::vector<FileIdentity>& identities);

/// Where a recheck made for a run the user opened may read. A run file is
/// input from anyone, so the paths its evidence names are not trusted: a
/// recheck for `tvis open`'s /api/freshness, `tvis inspect` or tvis-view
/// reads only inside the workspaces the user is working with, found from
/// locations the user chose, never from the file's contents: the workspace
/// holding what was opened and the workspace of the current directory (each
/// the nearest folder at or above it with tensorviz.toml or a project
/// marker), and the user's own config file (and what the command itself
/// vouches for: RecheckScope::files). Every other path (the interpreter, a
/// file elsewhere) is never stat'ed or read; it is listed in
/// Freshness::unchecked. Only regular files are read (opened non-blocking,
/// type checked on the open descriptor), at most kMaxRecheckBytes each.
struct RecheckScope {
  std::vector<std::string> roots;  // resolved workspace roots; none = nothing may be read (see why)
  std::vector<std::string> files;  // resolved files outside them that may be read: the user's config, and
                                   // the interpreter the current command itself runs (tvis graph's reuse)
  std::string why;                 // no roots: why nothing is rechecked
};

constexpr uint64_t kMaxRecheckBytes = uint64_t{64} << 20;

/// The scope for a local run file, run folder or runs folder at `location`,
/// opened from the current directory.
RecheckScope recheck_scope_for(const std::string& location);

/// A scope under which nothing is read (a remote run: its files are not on this machine).
RecheckScope no_recheck_scope(const std::string& why);

/// recheck_files() limited to `scope`: what lies outside it is in `unchecked`.
Freshness recheck_files_within(const std::vector<FileIdentity>& identities, const RecheckScope& scope);

// JSON (file_identity_json.cpp). identity_from_json: a missing or wrong-typed field is its default.
nlohmann::json identity_json(const FileIdentity& f);
FileIdentity identity_from_json(const nlohmann::json& j);
/// {checked, stale, reasons}: what state().view and the CLI report.
nlohmann::json freshness_json(const Freshness& f);

}  // namespace tvis::profiles
