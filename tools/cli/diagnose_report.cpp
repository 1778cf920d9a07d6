#include "diagnose_report.h"

#include <chrono>
#include <cstdio>

#include "tvis/format/byte_source.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/container_codec.h"
#include "tvis/runs/run_resolve.h"

namespace tvis::cli {

namespace fmt = tvis::format;
namespace an = tvis::analysis;

bool DiagnoseReport::has_error() const {
  for (const auto& f : findings)
    if (f.severity == an::Severity::Error) return true;
  return false;
}

bool diagnose_run(const std::string& run, DiagnoseReport& out, std::string* error) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string why;
  out.path = runs::resolve_run_file(run, &why);
  if (out.path.empty()) return *error = why, false;
  auto source = fmt::open_file_source(out.path);
  if (!source.ok()) return *error = source.status().message, false;
  auto reader = fmt::RunReader::open_sync(source.value());
  if (!reader.ok()) return *error = out.path + ": " + reader.status().message, false;
  out.complete = reader.value()->complete();
  an::RunFacts facts;
  if (auto st = an::load_facts(*reader.value(), facts, &out.cost); !st)
    return *error = out.path + ": " + st.message, false;
  out.findings = an::diagnose(facts);
  out.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

nlohmann::json position_json(const an::Position& w) {
  nlohmann::json j = {{"page", w.page}};
  if (w.step >= 0) j["step"] = w.step;
  if (!w.phase.empty()) j["phase"] = w.phase;
  if (!w.module.empty()) j["module"] = w.module;
  if (!w.param.empty()) j["param"] = w.param;
  return j;
}

std::string position_flags(const an::Position& w) {
  std::string s = "--page " + w.page;
  if (w.step >= 0) s += " --step " + std::to_string(w.step);
  if (!w.phase.empty()) s += " --phase " + w.phase;
  if (!w.module.empty()) s += " --module " + w.module;
  if (!w.param.empty()) s += " --param " + w.param;
  return s;
}

nlohmann::json diagnose_json(const DiagnoseReport& r) {
  nlohmann::json findings = nlohmann::json::array();
  int counts[3] = {0, 0, 0};
  for (const an::Finding& f : r.findings) {
    counts[static_cast<int>(f.severity)] += 1;
    nlohmann::json evidence = nlohmann::json::object();
    for (const an::Evidence& e : f.evidence)
      evidence[e.key] = e.text.empty() ? nlohmann::json(e.number) : nlohmann::json(e.text);
    findings.push_back({{"kind", f.kind},
                        {"severity", an::severity_name(f.severity)},
                        {"message", f.message},
                        {"evidence", evidence},
                        {"link", position_json(f.where)}});
  }
  return {{"run", r.path},
          {"complete", r.complete},
          {"findings", findings},
          {"counts", {{"error", counts[0]}, {"warning", counts[1]}, {"note", counts[2]}}},
          {"checks", an::check_kinds()},
          {"read",
           {{"chunks", r.cost.chunks_read},
            {"bytes", r.cost.bytes_read},
            {"chunks_skipped", r.cost.chunks_skipped},
            {"bytes_skipped", r.cost.bytes_skipped},
            {"ms", r.elapsed_ms}}}};
}

std::string diagnose_text(const DiagnoseReport& r) {
  std::string out = r.path + ": ";
  if (r.findings.empty()) {
    out += "no findings (" + std::to_string(an::check_kinds().size()) + " checks)\n";
  } else {
    out += std::to_string(r.findings.size()) + (r.findings.size() == 1 ? " finding" : " findings") +
           ", worst first\n";
    for (const an::Finding& f : r.findings) {
      out += "\n" + std::string(an::severity_name(f.severity)) + "  " + f.kind + "\n  " + f.message + "\n";
      out += "  open: " + position_flags(f.where) + "\n";
    }
  }
  char line[160];
  std::snprintf(line, sizeof line, "\nread %s in %llu chunks (tensor values not read: %s), %.0f ms%s\n",
                fmt::format_bytes(r.cost.bytes_read).c_str(), (unsigned long long)r.cost.chunks_read,
                fmt::format_bytes(r.cost.bytes_skipped).c_str(), r.elapsed_ms,
                r.complete ? "" : "; the run is incomplete (recovered)");
  return out + line;
}

}  // namespace tvis::cli
