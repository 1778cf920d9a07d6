// capture_freshness.cpp: saved captures and their recheck (capture_freshness.h).
#include "capture_freshness.h"

#include <algorithm>
#include <filesystem>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/byte_source.h"
#include "tvis/format/run_reader.h"
#include "tvis/schema/recording_generated.h"
#include "tvis/format/fb_string.h"

namespace tvis::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using format::str;

constexpr size_t kMaxRunsRead = 64;

}  // namespace

json asked_json(const CaptureRequestArgs& a) { return {{"target", a.target}, {"profile", a.profile}}; }

json request_json(const CaptureRequestArgs& a, const PreparedCapture& p) {
  return {{"workspace", p.catalog.workspace.root}, {"asked", asked_json(a)}, {"model", p.job.model},
          {"profile", p.job.profile}, {"source", p.job.source}, {"job", p.job.job}, {"python", p.pin.path},
          {"timeout_ms", p.job.timeout_ms}};
}

SavedCapture read_saved_capture(const std::string& run_file) {
  SavedCapture s;
  s.run_file = run_file;
  s.scope = profiles::recheck_scope_for(run_file);
  auto source = format::open_file_source(run_file);
  if (!source.ok()) return s.error = source.status().message, s;
  auto reader = format::RunReader::open_sync(source.value());
  if (!reader.ok()) return s.error = run_file + ": " + reader.status().message, s;
  const auto& chunks = reader.value()->chunks();
  for (uint32_t i = 0; i < chunks.size(); ++i) {
    if (chunks[i].info.kind != static_cast<uint16_t>(format::ChunkKind::ProfileCapture)) continue;
    auto chunk = reader.value()->read_chunk_sync(i);
    if (!chunk.ok()) return s.error = run_file + ": " + chunk.status().message, s;
    const schema::ProfileCapture* p = chunk.value()->root()->body_as_ProfileCapture();
    if (!p) return s.error = run_file + ": the capture chunk has no capture", s;
    s.request = json::parse(str(p->request()), nullptr, false);
    if (s.request.is_discarded() || !s.request.is_object()) s.request = nullptr;
    s.report = json::parse(str(p->report()), nullptr, false);
    if (s.report.is_discarded() || !s.report.is_object()) s.report = nullptr;
    if (p->evidence()) {
      s.recorded = true;
      for (const auto* f : *p->evidence()) {
        profiles::FileIdentity id;
        id.role = str(f->role()), id.path = str(f->path()), id.name = str(f->name()), id.present = f->present();
        id.resolved = str(f->resolved()), id.size = f->size(), id.mtime_ns = f->mtime_ns(), id.inode = f->inode();
        id.xxh64 = f->xxh64();
        s.evidence.push_back(std::move(id));
      }
    }
    return s;
  }
  s.error = run_file + " is not a profile capture";
  return s;
}

SavedCapture previous_capture(const std::string& runs, const std::string& workspace, const json& asked) {
  std::vector<std::string> folders;
  std::error_code ec;
  for (fs::directory_iterator it(runs, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find("_graph-") != std::string::npos && fs::is_regular_file(it->path() / "run.tvis", ec))
      folders.push_back(it->path().string());
  }
  std::sort(folders.rbegin(), folders.rend());  // <YYYYmmdd-HHMMSS>_...: newest first
  if (folders.size() > kMaxRunsRead) folders.resize(kMaxRunsRead);
  for (const auto& folder : folders) {
    SavedCapture s = read_saved_capture(folder + "/run.tvis");
    if (s.error.empty() && s.request.is_object() && s.request.value("workspace", "") == workspace &&
        s.request.value("asked", json()) == asked)
      return s;
  }
  return SavedCapture{};
}

profiles::Freshness saved_freshness(const SavedCapture& s) {
  return s.recorded ? profiles::recheck_files_within(s.evidence, s.scope) : profiles::Freshness{};
}

bool reusable(const SavedCapture& s, const json& request, std::string* why) {
  if (s.run_file.empty() || !s.report.is_object() || !s.request.is_object()) return *why = "no saved capture", false;
  if (!s.recorded) return *why = s.run_file + " records no evidence", false;
  if (s.request.value("job", json()) != request.value("job", json()))
    return *why = "the request resolves to another job than " + s.run_file + "'s", false;
  if (s.request.value("python", "") != request.value("python", ""))
    return *why = "another interpreter than " + s.run_file + "'s", false;
  if (s.request.value("timeout_ms", json()) != request.value("timeout_ms", json()))  // --timeout-ms, limits.timeout_ms
    return *why = "another forward limit (" + request.value("timeout_ms", json()).dump() + " ms) than " + s.run_file +
                  "'s (" + s.request.value("timeout_ms", json()).dump() + " ms)", false;
  const profiles::Freshness f = saved_freshness(s);
  if (f.stale) {
    std::string list;
    for (const auto& r : f.reasons) list += (list.empty() ? "" : "; ") + r;
    return *why = s.run_file + " is stale (" + list + ")", false;
  }
  if (!f.checked || !f.unchecked.empty()) {  // certified only when every recorded file was rechecked
    std::string list = f.why;
    for (const auto& u : f.unchecked) list += (list.empty() ? "" : "; ") + u;
    return *why = s.run_file + "'s files were not all rechecked (" + list + ")", false;
  }
  return true;
}

json reopened_json(const SavedCapture& s) {
  json j = s.report;
  j["reopened"] = true;
  j["run"] = s.run_file;
  j["freshness"] = profiles::freshness_json(saved_freshness(s));
  j["stale"] = false;
  return j;
}

void add_retained(const SavedCapture& s, json* j, std::string* text) {
  if (s.run_file.empty()) return;
  const profiles::Freshness f = saved_freshness(s);
  (*j)["retained"] = {{"run", s.run_file}, {"label", kRetainedLabel}, {"freshness", profiles::freshness_json(f)}};
  std::string reasons;
  for (const auto& r : f.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
  *text += std::string(kRetainedLabel) + ": " + s.run_file + (f.stale ? " (stale: " + reasons + ")" : "") + "\n";
}

json run_freshness_json(const std::string& run_file) {
  const SavedCapture s = read_saved_capture(run_file);
  if (!s.error.empty()) return profiles::freshness_json({});
  return profiles::freshness_json(saved_freshness(s));
}

}  // namespace tvis::cli
