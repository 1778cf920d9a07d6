// run_capture(): starts python/worker.py, reads its JSON lines into a
// Capture, and turns the worker's facts into diagnostics (shape ones from
// the recorded operands, shape_diagnostics.h). See capture.h.
#include <chrono>

#include "tvis/profiles/capture.h"
#include "tvis/profiles/shape_diagnostics.h"
#include "worker_lines.h"
#include "worker_process.h"
#include "tvis/json/safe.h"

namespace tvis::profiles {

const char* worker_script();  // worker_script.cpp, generated from python/worker.py

namespace {

using nlohmann::json;

constexpr const char* kPartialLabel = "partial graph: evidence from this input only, not a validation";

Diagnostic diagnostic(const std::string& kind, const std::string& message) {
  Diagnostic d;
  d.kind = kind;
  d.message = message;
  return d;
}

}  // namespace

Capture run_capture(const std::string& python, const CaptureJob& job, const std::string& log_path) {
  Capture c;
  c.profile = job.profile, c.model = job.model, c.source = job.source, c.python = python, c.log = log_path;
  c.timeout_ms = job.timeout_ms;
  detail::WorkerLineReader reader{c};
  const auto t0 = std::chrono::steady_clock::now();
  detail::WorkerDeadlines deadlines;
  deadlines.run_ms = job.timeout_ms;
  const auto p = detail::run_worker_process({python, "-I", "-c", worker_script()}, tvis::safe_json::text(job.job), "/", log_path, deadlines,
                                            [&](const std::string& l) { return reader(l); });
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!p.started) {
    c.stage = "worker";
    c.diagnostics.push_back(diagnostic("setup", p.error));
  } else if (p.cancelled) {
    c.cancelled = true;
    c.stage = reader.last_stage.empty() ? "startup" : reader.last_stage;
    c.diagnostics.push_back(diagnostic("cancelled", "cancelled during " + c.stage + " (Ctrl-C); the worker was stopped"));
  } else if (p.timed_out) {
    c.stage = reader.last_stage.empty() ? "startup" : reader.last_stage;
    c.diagnostics.push_back(
        p.startup_timed_out
            ? diagnostic("timeout", "the worker did not start (import torch) within " +
                                        std::to_string(deadlines.startup_ms) + " ms; it was stopped")
            : diagnostic("timeout", c.stage + " did not finish within " + std::to_string(job.timeout_ms) +
                                        " ms (" + job.timeout_setting + "); the worker was stopped"));
  } else if (reader.result.is_object()) {
    detail::read_worker_result(c, reader.result);
  } else {
    c.stage = reader.last_stage.empty() ? "worker" : reader.last_stage;
    c.diagnostics.push_back(diagnostic("setup", "the worker ended (exit " + std::to_string(p.exit_code) + ") during " + c.stage +
                                                    " without a result; see the log"));
  }
  if (!p.log_error.empty()) c.diagnostics.push_back(diagnostic("setup", p.log_error));
  if (!c.ok) {
    c.partial = c.stage == "forward" || !c.nodes.empty();
    // "failed guess" only where an automatic input was made and tried; a refusal to guess is not one.
    c.label = !c.automatic.empty() ? "failed guess" : (c.partial ? kPartialLabel : "");
  }
  if (c.failed_node == 0)
    for (const auto& n : c.nodes)
      if (n.failed) c.failed_node = n.id;
  return c;
}

}  // namespace tvis::profiles
