// capture.h: one profile capture, the engine behind `tvis check` and
// `tvis graph` (SPEC.md "Model profiles"; docs/profiles.md "Check and
// graph"). A request resolved by resolution.h becomes a worker job
// (worker_job()), the embedded python/worker.py runs it in the selected
// interpreter as `python -I -c WORKER` (its code in no importable module, so
// a project package named `services` or `tvis_worker` cannot collide), and
// its JSON lines become a Capture: the stage reached, the outputs, the
// graph of module calls up to the end or the failure, and diagnostics.
//
// Contracts:
//   - Setup failures name their stage (device, import, construction,
//     factory, fixture, inputs, binding) and the Python parameter names
//     involved; tracebacks go to the log the Capture names, never into a
//     diagnostic.
//   - A forward failing inside matmul / linear / bmm / conv / embedding is
//     explained only from the operands recorded at that call
//     (shape_diagnostics.h); exception text is never read for shapes.
//   - The forward runs under `timeout_ms` (from the worker's `ready` line:
//     interpreter start and `import torch` have their own startup limit);
//     at the limit the worker's process group is killed and the Capture
//     says so (kind "timeout").
//   - A failed automatic attempt is labelled "failed guess".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tvis/profiles/catalog.h"
#include "tvis/profiles/file_identity.h"

namespace tvis::profiles {

/// The forward limit of automatic validation (no profile applies).
constexpr int64_t kAutomaticTimeoutMs = 180'000;

struct Operand {
  std::string name;
  std::vector<int64_t> shape;  // -1: unknown ("?")
  std::string dtype;
};

struct Diagnostic {
  std::string kind;     // "shape", "dtype", "index", "binding", "setup", "timeout", "assertion", "forward", "config"
  std::string message;  // one line
  std::string field;    // a config field path, when about the config
  std::vector<Operand> operands;
  nlohmann::json parameters = nullptr;  // binding: {missing, unexpected, ...}
};

struct GraphEdge {
  uint32_t from = 0;  // node id, 0 = not produced by a captured call
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
};

struct CaptureNode {
  uint32_t id = 0;
  std::string op;      // "input", "output", "module:Linear", or the failing op ("linear", ...)
  std::string module;  // dotted module path (inputs: the argument's name)
  std::vector<GraphEdge> inputs;
  std::vector<Operand> outputs;
  bool failed = false;
};

/// What the worker is asked to do: the JSON job of worker.py plus the limits.
struct CaptureJob {
  nlohmann::json job;
  std::string profile;  // "" without a profile
  std::string model;    // module:Class
  std::string source;   // "profile", "declaration" or "automatic"
  int64_t timeout_ms = kAutomaticTimeoutMs;
  std::string timeout_setting = "limits.timeout_ms";  // what a timeout diagnostic names as the limit's origin
};

/// The job for a resolved request, or "" + `error` when it cannot run
/// (refused, `choose` unanswered: the error says what to pass).
CaptureJob worker_job(const Catalog& c, const Resolution& r, const std::string& class_ref, std::string* error);

struct Capture {
  std::string profile, model, source;
  std::string python, python_version, torch_version, jax_version;  // the worker's `ready` line
  bool ok = false;
  std::string stage;  // the failing stage ("" on success); "forward" for a failed forward
  std::vector<Operand> inputs, outputs;
  std::vector<Diagnostic> diagnostics;
  std::vector<CaptureNode> nodes;
  uint32_t failed_node = 0;  // the failing call's node, 0 when none
  bool partial = false;      // the graph ends at a failure
  bool truncated = false;    // the graph reached max_capture_bytes
  std::string automatic;     // how the automatic input was derived ("" when not automatic)
  std::string label;         // "" / "failed guess" / "partial graph: evidence from this input only, not a validation"
  std::string log;           // the worker's stderr (tracebacks)
  int64_t timeout_ms = 0;
  double seconds = 0;
  // The interpreter and freshness (capture_evidence.h); run_pinned_capture() fills them.
  std::vector<std::string> imported;   // workspace files of the modules the worker had loaded (its `modules` line)
  std::string interpreter_origin;      // where the interpreter choice came from ("" = not pinned)
  std::string interpreter_version;     // as pinned
  bool refused = false;                // the interpreter changed between plan and run: nothing is certified
  bool cancelled = false;              // stopped by request_capture_cancel() (Ctrl-C): nothing is certified
  std::vector<FileIdentity> evidence;  // the files the capture depended on, as they were before it ran
  Freshness freshness;                 // the evidence rechecked right after the capture
  /// 0 when setup and forward succeeded on fresh evidence, 2 when refused,
  /// 130 when cancelled (as a shell reports Ctrl-C), 1 otherwise.
  int exit_code() const { return cancelled ? 130 : refused ? 2 : ok ? 0 : 1; }
};

/// Runs `job` in `python`, the worker's stderr written to `log_path`.
Capture run_capture(const std::string& python, const CaptureJob& job, const std::string& log_path);

/// Asks the capture running in this process (and any started later) to stop:
/// its worker is killed within a second and the Capture comes back
/// `cancelled`. Async-signal-safe: a command's SIGINT/SIGTERM handler calls it.
void request_capture_cancel();
bool capture_cancel_requested();

/// `tvis check --json`: ok, profile, model, source, stage, outputs, inputs,
/// diagnostics, label, automatic, log, partial, nodes (count), seconds.
nlohmann::json capture_json(const Capture& c);
/// `tvis check` for people: the outputs, or the stage and each diagnostic.
std::string capture_text(const Capture& c);

}  // namespace tvis::profiles
