// config.h: tensorviz.toml as validated data (SPEC.md "Model profiles";
// docs/profiles.md). load_config() reads and validates the WHOLE file: every
// problem of every profile is reported at once (bounded, see problem.h), a
// malformed profile is kept and marked invalid, never skipped, and no
// default ever stands in for a setting that was given but failed.
//
// Values handed to the worker (init/factory kwargs, inputs) are kept as JSON
// exactly as written (TOML integers stay integers), so the worker (issue 17)
// receives what the user wrote.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tvis/profiles/problem.h"

namespace tvis::profiles {

// Bounds of a profile (SPEC.md).
constexpr int64_t kTimeoutMinMs = 100, kTimeoutMaxMs = 86'400'000, kTimeoutDefaultMs = 60'000;
constexpr int64_t kCaptureMinBytes = 1024, kCaptureMaxBytes = 16 << 20;
constexpr int64_t kCaptureDefaultBytes = 4 << 20;  // the record limit
constexpr int64_t kMaxInputElements = 4'194'304, kMaxInputTensors = 256, kMaxInputBytes = 64 << 20;
constexpr int64_t kMaxLiterals = 4096, kMaxDepth = 16, kMaxEntries = 1024;
constexpr int64_t kMaxSafeInteger = 9'007'199'254'740'991;  // 2^53 - 1

/// `file` + top-level `callable` + JSON-literal `kwargs` (a model factory or an input factory).
struct Callable {
  std::string file;  // workspace-relative, checked not to escape the workspace
  std::string callable;
  nlohmann::json kwargs = nlohmann::json::object();
};

struct Profile {
  std::string name;
  int line = 0;                     // where [profiles.NAME] starts
  std::string kind;                 // "model" or "script"
  std::string framework = "torch";  // "torch" or "jax" (the capture worker's worker_jax.py)
  std::string model;                // "pkg.module:Class" as written
  std::string module, class_name;   // its two halves when well formed
  std::string mode, device;         // "eval"/"train"; "cpu", "cuda", "cuda:N", "mps"
  bool grad_enabled = false;
  std::optional<int64_t> seed;      // absent: global RNGs are left unseeded
  bool deterministic = true;
  std::string cwd;                  // workspace-relative ("" = the root)
  int64_t timeout_ms = kTimeoutDefaultMs;
  int64_t max_capture_bytes = kCaptureDefaultBytes;
  std::optional<nlohmann::json> init;      // {"args": [...], "kwargs": {...}}
  std::optional<Callable> factory;         // instead of init
  std::optional<nlohmann::json> inputs;    // {"args": [...], "kwargs": {...}} of typed values
  std::optional<Callable> input_factory;   // instead of explicit inputs
  std::string script;                      // kind = "script": the script, workspace-relative
  std::vector<Problem> problems;           // empty: valid
  bool valid() const { return problems.empty(); }
};

struct Config {
  std::string path;  // the file read ("" when there is none)
  bool present = false;
  std::vector<Problem> problems;  // file-level ones (unreadable, malformed TOML, root keys)
  std::vector<Profile> profiles;  // in file order
  /// `[tool] python_path`: the interpreter this workspace asks for
  /// (interpreter_resolver.h), made absolute (a relative path is against the
  /// workspace root, a leading `~/` is $HOME); "" when absent or invalid.
  std::string python_path;
  int python_path_line = 0;  // where it is written (messages name it)
  /// Valid: the file is absent or every profile and the root are free of problems.
  bool valid() const;
  /// Every problem, file-level first, then per profile in file order.
  std::vector<Problem> all_problems() const;
  const Profile* find(const std::string& name) const;
};

/// Parses and validates `text` as the tensorviz.toml of workspace `root`
/// (`path` is only used in messages). Paths in the file (factory files, cwd,
/// script) are checked to stay inside `root` after following symlinks.
Config parse_config(const std::string& text, const std::string& path, const std::string& root);

/// Reads `path` and parse_config()s it; an unreadable file, a directory or a
/// broken symlink is a file-level problem.
Config load_config(const std::string& path, const std::string& root);

}  // namespace tvis::profiles
