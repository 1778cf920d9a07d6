// run_capture(): starts python/worker.py, reads its JSON lines into a
// Capture, and turns the worker's facts into diagnostics (shape ones from
// the recorded operands, shape_diagnostics.h). See capture.h.
#include <chrono>

#include "tvis/profiles/capture.h"
#include "tvis/profiles/shape_diagnostics.h"
#include "worker_process.h"
#include "tvis/json/safe.h"

namespace tvis::profiles {

const char* worker_script();  // worker_script.cpp, generated from python/worker.py

namespace {

using nlohmann::json;

constexpr const char* kPartialLabel = "partial graph: evidence from this input only, not a validation";

std::vector<int64_t> shape_of(const json& j) {
  std::vector<int64_t> s;
  if (j.is_array())
    for (const auto& d : j) s.push_back(d.is_number_integer() ? d.get<int64_t>() : -1);
  return s;
}

Operand operand_of(const json& j) {
  return {j.value("name", ""), shape_of(j.value("shape", json::array())), j.value("dtype", "")};
}

std::vector<Operand> operands_of(const json& j) {
  std::vector<Operand> out;
  if (j.is_array())
    for (const auto& o : j) out.push_back(operand_of(o));
  return out;
}

CaptureNode node_of(const json& j) {
  CaptureNode n;
  n.id = j.value("id", 0u);
  n.op = j.value("op", "");
  n.module = j.value("module", "");
  n.failed = j.value("failed", false);
  n.outputs = operands_of(j.value("outputs", json::array()));
  for (const auto& e : j.value("inputs", json::array()))
    n.inputs.push_back({e.value("from", 0u), e.value("name", ""), shape_of(e.value("shape", json::array())), e.value("dtype", "")});
  return n;
}

// Reads the worker's lines; returns true for `ready` (the forward clock starts).
struct LineReader {
  Capture& c;
  json result;
  std::string last_stage;
  int64_t bad_lines = 0;

  bool operator()(const std::string& line) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return ++bad_lines, false;
    const std::string t = j.value("t", "");
    if (t == "ready") {
      c.python_version = j.value("python", "");
      c.torch_version = j.value("torch", "");
      return true;
    }
    if (t == "stage") last_stage = j.value("stage", "");
    else if (t == "node") c.nodes.push_back(node_of(j));
    else if (t == "truncated") c.truncated = true;
    else if (t == "modules") {
      for (const auto& f : j.value("files", json::array()))
        if (f.is_string()) c.imported.push_back(f.get<std::string>());
    }
    else if (t == "inputs") {
      c.inputs = operands_of(j.value("inputs", json::array()));
      if (j.contains("automatic") && j["automatic"].is_string()) c.automatic = j["automatic"].get<std::string>();
    } else if (t == "result") result = std::move(j);
    return false;
  }
};

Diagnostic diagnostic(const std::string& kind, const std::string& message) {
  Diagnostic d;
  d.kind = kind;
  d.message = message;
  return d;
}

// The forward failed inside a watched operator: diagnostics from its operands only.
void operator_failure(Capture& c, const json& f, const std::string& exception_type) {
  std::vector<RecordedOperand> ops;
  for (const auto& o : f.value("operands", json::array())) {
    RecordedOperand r{operand_of(o)};
    if (o.contains("min") && o.contains("max")) r.has_range = true, r.min = o["min"].get<int64_t>(), r.max = o["max"].get<int64_t>();
    ops.push_back(std::move(r));
  }
  const std::string op = f.value("op", "");
  const std::string module = f.value("module", "");
  c.failed_node = f.value("node", 0u);
  auto found = operator_diagnostics(op, ops, f.value("options", json::object()));
  const std::string where = op + (module.empty() ? "" : " in " + module);
  for (auto& d : found) {
    d.message = where + ": " + d.message;
    c.diagnostics.push_back(std::move(d));
  }
  if (!found.empty()) return;
  Diagnostic d = diagnostic("forward", where + " raised " + exception_type +
                                           "; its operands break no shape or dtype constraint tvis checks (see the log)");
  for (const auto& o : ops) d.operands.push_back(o.operand);
  c.diagnostics.push_back(std::move(d));
}

void read_result(Capture& c, const json& r) {
  c.ok = r.value("ok", false);
  c.stage = r.value("stage", "");
  c.truncated = c.truncated || r.value("truncated", false);
  c.outputs = operands_of(r.value("outputs", json::array()));
  if (c.ok) return;
  const std::string kind = r.value("kind", "setup");
  const std::string type = r.value("exception_type", "an exception");
  if (kind == "operator" && r.contains("failure")) {
    operator_failure(c, r["failure"], type);
  } else if (kind == "assertion" || kind == "forward") {
    const std::string module = r.value("module", "");
    c.diagnostics.push_back(diagnostic(kind, "forward raised " + type + (module.empty() ? "" : " in " + module) +
                                                 " (not a supported operator; the traceback is in the log)"));
  } else {
    Diagnostic d = diagnostic(kind, r.value("message", "setup failed"));
    if (r.contains("parameters") && !r["parameters"].empty()) d.parameters = r["parameters"];
    c.diagnostics.push_back(std::move(d));
  }
}

}  // namespace

Capture run_capture(const std::string& python, const CaptureJob& job, const std::string& log_path) {
  Capture c;
  c.profile = job.profile, c.model = job.model, c.source = job.source, c.python = python, c.log = log_path;
  c.timeout_ms = job.timeout_ms;
  LineReader reader{c, nullptr, "", 0};
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
    read_result(c, reader.result);
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
