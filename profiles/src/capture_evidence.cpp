// capture_evidence.cpp: evidence_before/after and run_pinned_capture() (capture_evidence.h).
#include "tvis/profiles/capture_evidence.h"

#include <set>

#include "tvis/profiles/choices.h"
#include "tvis/profiles/user_config.h"
#include "tvis/profiles/workspace.h"

namespace tvis::profiles {

namespace {

std::string relative_to(const std::string& path, const std::string& root) {
  return path.rfind(root + "/", 0) == 0 ? path.substr(root.size() + 1) : path;
}

Diagnostic diagnostic(const std::string& kind, const std::string& message) {
  Diagnostic d;
  d.kind = kind;
  d.message = message;
  return d;
}

// The capture refused by an interpreter change: nothing of what ran is certified.
void refuse(Capture& c, const std::string& why) {
  c.refused = true;
  c.ok = false;
  c.stage = "interpreter";
  c.diagnostics.insert(c.diagnostics.begin(), diagnostic("interpreter", why));
}

}  // namespace

std::vector<FileIdentity> evidence_before(const Catalog& c, const InterpreterPin& pin) {
  const std::string& root = c.workspace.root;
  std::vector<FileIdentity> out;
  FileIdentity interpreter = pin.file;
  interpreter.name = "interpreter " + pin.path;
  out.push_back(interpreter);
  out.push_back(identify_file(root + "/" + kConfigName, "config", kConfigName));
  out.push_back(identify_file(root + "/" + kChoicesName, "choices", kChoicesName));
  const std::string user = user_config_path();
  if (!user.empty()) out.push_back(identify_file(user, "user_config", user));
  for (const auto& f : c.sources.files)
    if (!f.external && !f.path.empty()) out.push_back(identify_file(f.path, "source", relative_to(f.path, root)));
  return out;
}

std::vector<FileIdentity> evidence_after(const std::vector<FileIdentity>& before, const std::vector<std::string>& imported,
                                         const std::string& root) {
  std::vector<FileIdentity> out;
  for (const auto& f : before)
    if (f.role != "source") out.push_back(f);
  std::set<std::string> seen;
  for (const auto& file : imported) {
    if (!seen.insert(file).second) continue;
    const FileIdentity* known = nullptr;
    for (const auto& f : before)
      if (f.role == "source" && (f.resolved == file || f.path == file)) known = &f;
    out.push_back(known ? *known : identify_file(file, "source", relative_to(file, root)));
  }
  return out;
}

Capture run_pinned_capture(const InterpreterPin& pin, const Catalog& catalog, const CaptureJob& job,
                           const std::string& log_path) {
  const std::vector<FileIdentity> before = evidence_before(catalog, pin);
  if (const std::string why = pin_change(pin, "(before the worker started)"); !why.empty()) {
    Capture c;
    c.profile = job.profile, c.model = job.model, c.source = job.source, c.python = pin.path, c.log = log_path;
    c.timeout_ms = job.timeout_ms;
    c.interpreter_origin = pin.origin, c.interpreter_version = pin.version;
    refuse(c, why);
    return c;
  }
  Capture c = run_capture(pin.path, job, log_path);
  c.interpreter_origin = pin.origin, c.interpreter_version = pin.version;
  c.evidence = evidence_after(before, c.imported, catalog.workspace.root);
  if (std::string why = pin_change(pin, "(while the worker ran)"); !why.empty()) {
    refuse(c, why);
  } else if (!c.python_version.empty() && c.python_version != pin.version) {
    refuse(c, "interpreter changed between plan and run: " + pin.path + " was Python " + pin.version +
                  " when planned, the worker ran Python " + c.python_version);
  }
  c.freshness = recheck_files(c.evidence);
  if (c.freshness.stale && !c.refused) {
    std::string list;
    for (const auto& r : c.freshness.reasons) list += (list.empty() ? "" : "; ") + r;
    const bool was_ok = c.ok;
    c.ok = false;
    if (was_ok) c.stage = "freshness";
    c.diagnostics.push_back(diagnostic("stale", "the evidence changed while the capture ran (" + list +
                                                    "): not certified; run it again"));
  }
  return c;
}

}  // namespace tvis::profiles
