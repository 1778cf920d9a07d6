#include "diagnose_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "tvis/format/byte_source.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/container_codec.h"
#include "tvis/remote/store_opener.h"
#include "tvis/remote/store_source.h"
#include "tvis/runs/run_resolve.h"
#include "tvis/links/diff_json.h"
#include "tvis/links/finding_json.h"
#include "tvis/links/page_link.h"
#include "tvis/schema/recording_generated.h"

namespace tvis::cli {

namespace fmt = tvis::format;
namespace an = tvis::analysis;

bool DiagnoseReport::has_error() const {
  for (const auto& f : findings)
    if (f.severity == an::Severity::Error) return true;
  return false;
}

namespace {

// Reads the facts of the run `source` holds; `out.path` is already set.
bool read_source(std::shared_ptr<fmt::ByteSource> source, an::RunFacts& facts, RunRead& out, std::string* error) {
  out.source = source;
  auto reader = fmt::RunReader::open_sync(std::move(source));
  if (!reader.ok()) return *error = out.path + ": " + reader.status().message, false;
  out.complete = reader.value()->complete();
  if (auto st = an::load_facts(*reader.value(), facts, &out.cost); !st)
    return *error = out.path + ": " + st.message, false;
  return true;
}

// HOST:PATH or a saved target: the store's newest run (its catalog lists
// newest first), or the run PATH names.
bool read_remote(const DiagnoseRequest& r, an::RunFacts& facts, RunRead& out, std::string* error) {
  auto opened = remote::open_store({r.what, r.via, r.remote_tvis, r.ssh_config});
  if (!opened.ok) return *error = opened.error, false;
  const auto& store = opened.value->store;
  auto listed = store->list();
  const nlohmann::json cards = listed.ok ? nlohmann::json::parse(listed.value, nullptr, false) : nlohmann::json();
  if (!listed.ok || !cards.is_array())
    return *error = store->describe() + ": " + (listed.ok ? "the run list is not JSON" : listed.error), false;
  if (cards.empty() || !cards[0].is_object()) return *error = store->describe() + ": no runs there", false;
  const std::string path = cards[0].value("path", "");
  out.path = store->describe() + " " + path;
  auto source = remote::open_store_source(store, path);
  if (!source.ok()) return *error = out.path + ": " + source.status().message, false;
  out.connection = opened.value;
  return read_source(source.value(), facts, out, error);
}

}  // namespace

bool read_run_facts(const DiagnoseRequest& request, an::RunFacts& facts, RunRead& out, std::string* error) {
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  bool ok;
  if (!std::filesystem::exists(request.what, ec) &&
      remote::classify_store_argument(request.what).kind != remote::StoreTarget::Kind::Local) {
    ok = read_remote(request, facts, out, error);
  } else {
    std::string why;
    out.path = runs::resolve_run_file(request.what, &why);
    if (out.path.empty()) return *error = why, false;
    auto source = fmt::open_file_source(out.path);
    if (!source.ok()) return *error = source.status().message, false;
    ok = read_source(source.value(), facts, out, error);
  }
  out.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return ok;
}

namespace {

/// The other ranks' files of a local distributed run: rank<N>.tvis beside a
/// run.tvis, by N. A file given by its rank name is judged alone.
std::vector<std::string> rank_files_beside(const std::string& run_path) {
  namespace fs = std::filesystem;
  std::vector<std::pair<int, std::string>> found;
  const fs::path p(run_path);
  if (p.filename() != "run.tvis") return {};
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(p.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 10 || name.rfind("rank", 0) != 0 || name.substr(name.size() - 5) != ".tvis") continue;
    const std::string digits = name.substr(4, name.size() - 9);
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (entry.is_regular_file(ec)) found.emplace_back(std::stoi(digits), entry.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [rank, path] : found) out.push_back(std::move(path));
  return out;
}

bool any_alarm(const std::vector<an::Finding>& findings) {
  for (const an::Finding& f : findings)
    if (f.severity != an::Severity::Note) return true;
  return false;
}

/// Fills out.sources: for each finding naming a module, the module's first
/// recorded call at the finding's step and phase (else its first call at all), then its callers outward, until one has a site in the
/// project's own code (its recorded display path is relative and not inside
/// site-packages): the module's definition when its class is the user's,
/// else the line of the user's code that calls it (a torch layer called in
/// the user's forward, or the model called in the training loop). Reads the
/// Events and SourceFiles chunks again through the source the facts came
/// from (a local file or a store's run over the agent: the same answer and
/// cost either way), added to the cost.
void finding_sources(DiagnoseReport& out, const std::shared_ptr<fmt::ByteSource>& source) {
  out.sources.assign(out.findings.size(), {});
  std::set<std::string> wanted;
  for (const an::Finding& f : out.findings)
    if (!f.where.module.empty()) wanted.insert(f.where.module);
  if (wanted.empty() || !source) return;
  auto reader = fmt::RunReader::open_sync(source);
  if (!reader.ok()) return;
  struct Site { int64_t parent = -1; uint32_t def_file = 0, def_line = 0, call_file = 0, call_line = 0; };
  std::map<uint64_t, Site> events;             // module calls by id
  // (wanted module, step, phase name) -> its lowest event id; step -2 / phase "": any
  using CallKey = std::tuple<std::string, int, std::string>;
  std::map<CallKey, uint64_t> first_call;
  std::map<uint32_t, std::pair<std::string, std::string>> files;  // id -> (path, display path)
  for (const fmt::ChunkEntry& entry : reader.value()->chunks()) {
    const auto kind = static_cast<fmt::ChunkKind>(entry.info.kind);
    if (kind != fmt::ChunkKind::Events && kind != fmt::ChunkKind::SourceFiles) continue;
    auto chunk = reader.value()->read_chunk_sync(entry.ordinal);
    if (!chunk.ok() || !chunk.value()->root()) continue;
    out.cost.chunks_read += 1, out.cost.bytes_read += entry.compressed_size + fmt::kChunkHeaderSize;
    const auto* root = chunk.value()->root();
    if (const auto* b = root->body_as_EventBatch(); b && b->events())
      for (const auto* e : *b->events()) {
        if (e->kind() != schema::EventKind::ModuleCall) continue;
        events[e->id()] = {e->parent(), e->def_file(), e->def_line(), e->call_file(), e->call_line()};
        const std::string name = e->name() ? e->name()->str() : std::string();
        if (!wanted.count(name)) continue;
        const std::string phase = an::phase_name(static_cast<an::Phase>(e->phase()));
        for (const CallKey& key : {CallKey{name, e->step(), phase}, CallKey{name, -2, ""}}) {
          auto [at, added] = first_call.emplace(key, e->id());
          if (!added && e->id() < at->second) at->second = e->id();
        }
      }
    if (const auto* s = root->body_as_SourceFiles(); s && s->files())
      for (const auto* f : *s->files())
        files.emplace(f->id(), std::make_pair(f->path() ? f->path()->str() : std::string(),
                                              f->display_path() ? f->display_path()->str() : std::string()));
  }
  const auto project_file = [&](uint32_t id) {
    const auto f = files.find(id);
    if (f == files.end() || f->second.first.empty()) return false;
    const std::string& shown = f->second.second;
    return !shown.empty() && shown[0] != '/' && shown.find("site-packages/") == std::string::npos &&
           shown.find("dist-packages/") == std::string::npos;
  };
  std::map<CallKey, DiagnoseReport::Source> by_module;
  for (const auto& [module, id] : first_call) {
    DiagnoseReport::Source found;
    int64_t at = static_cast<int64_t>(id);
    for (int depth = 0; at >= 0 && depth < 256; ++depth) {  // bounded: a malformed parent chain cannot loop
      const auto e = events.find(static_cast<uint64_t>(at));
      if (e == events.end()) break;
      const Site& s = e->second;
      const bool def = s.def_line > 0 && project_file(s.def_file);
      if (def || (s.call_line > 0 && project_file(s.call_file))) {
        const uint32_t file = def ? s.def_file : s.call_file;
        found = {files[file].first, files[file].second, def ? "definition" : "call", def ? s.def_line : s.call_line};
        break;
      }
      at = s.parent;
    }
    by_module[module] = found;
  }
  for (size_t i = 0; i < out.findings.size(); ++i) {
    const an::Position& w = out.findings[i].where;
    auto s = by_module.find({w.module, w.step, an::phase_name(w.phase)});  // the call at the finding's step and phase,
    if (s == by_module.end()) s = by_module.find({w.module, -2, ""});  // else the module's first call
    if (s != by_module.end()) out.sources[i] = s->second;
  }
}

}  // namespace

bool diagnose_run(const DiagnoseRequest& request, DiagnoseReport& out, std::string* error) {
  const auto t0 = std::chrono::steady_clock::now();
  an::RunFacts facts;
  RunRead read;
  if (!read_run_facts(request, facts, read, error)) return false;
  out.path = read.path, out.complete = read.complete, out.cost = read.cost;
  std::vector<an::RunFacts> others;
  std::error_code ec;
  if (std::filesystem::exists(read.path, ec))
    for (const std::string& path : rank_files_beside(read.path)) {
      an::RunFacts rank;
      RunRead rank_read;
      std::string why;
      if (!read_run_facts(DiagnoseRequest{path, {}, "", ""}, rank, rank_read, &why)) {
        out.rank_problems.push_back(why);  // the other ranks are still judged
        continue;
      }
      others.push_back(std::move(rank));
      out.rank_paths.push_back(path);
      out.cost.chunks_read += rank_read.cost.chunks_read, out.cost.bytes_read += rank_read.cost.bytes_read;
      out.cost.chunks_skipped += rank_read.cost.chunks_skipped, out.cost.bytes_skipped += rank_read.cost.bytes_skipped;
    }
  std::vector<const an::RunFacts*> ranks = {&facts};
  for (const an::RunFacts& r : others) ranks.push_back(&r);
  out.findings = an::diagnose(ranks);
  finding_sources(out, read.source);
  const std::string why = an::nothing_to_judge(facts);
  if (!why.empty() && (facts.notice("recorder_error") || facts.meta().capture || !any_alarm(out.findings)))
    out.unjudged = why;
  out.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

bool diagnose_run(const std::string& run, DiagnoseReport& out, std::string* error) {
  std::error_code ec;
  if (!std::filesystem::exists(run, ec)) return *error = run + ": no such run, folder or file", false;
  return diagnose_run(DiagnoseRequest{run, {}, "", ""}, out, error);
}

using links::delta_json;

nlohmann::json diff_json(const RunRead& a, const RunRead& b, const an::RunDiff& d, const an::DiffOptions& options) {
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& row : d.largest) {
    rows.push_back(delta_json(row));
    const std::string module = row.module.empty() ? row.name : row.module;
    layers.push_back({{"module", module}, {"step", row.step}, {"what", row.what}, {"max_abs", links::delta_max_abs(row)}});
  }
  return {{"identical", d.same()},
          {"first", d.has_first ? delta_json(d.first) : nlohmann::json(nullptr)},
          {"layers", layers},
          {"a", a.path},
          {"b", b.path},
          {"same", d.same()},
          {"largest", rows},
          {"events", {{"matched", d.events_matched}, {"only_a", d.events_only_a}, {"only_b", d.events_only_b}}},
          {"tensors", {{"compared", d.tensors_compared}, {"differing", d.tensors_differing}}},
          {"steps", {{"a", d.steps_a}, {"b", d.steps_b}}},
          {"atol", options.atol},
          {"rtol", options.rtol}};
}

bool diff_json(const std::string& a, const std::string& b, const an::DiffOptions& options, nlohmann::json* out,
               std::string* error) {
  std::error_code ec;
  for (const std::string* run : {&a, &b})  // local runs only: never a HOST:PATH read over ssh
    if (!std::filesystem::exists(*run, ec)) return *error = *run + ": no such run, folder or file", false;
  an::RunFacts fa, fb;
  RunRead ra, rb;
  if (!read_run_facts(DiagnoseRequest{a, {}, "", ""}, fa, ra, error) ||
      !read_run_facts(DiagnoseRequest{b, {}, "", ""}, fb, rb, error))
    return false;
  *out = diff_json(ra, rb, an::diff_runs(fa, fb, options), options);
  return true;
}

nlohmann::json diagnose_json(const DiagnoseReport& r) {
  nlohmann::json findings = nlohmann::json::array();
  int counts[3] = {0, 0, 0};
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const an::Finding& f = r.findings[i];
    counts[static_cast<int>(f.severity)] += 1;
    nlohmann::json j = links::finding_json(f);
    if (i < r.sources.size() && r.sources[i].line > 0) {
      const DiagnoseReport::Source& s = r.sources[i];
      j["source"] = {{"file", s.file}, {"display", s.display}, {"line", s.line}, {"site", s.site}};
    }
    findings.push_back(std::move(j));
  }
  return {{"run", r.path},
          {"ranks", r.rank_paths},
          {"rank_problems", r.rank_problems},
          {"judged", r.unjudged.empty()},
          {"nothing_to_judge", r.unjudged.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.unjudged)},
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
  if (!r.rank_paths.empty()) out = r.path + " and " + std::to_string(r.rank_paths.size()) + " other rank file" +
                                   (r.rank_paths.size() == 1 ? "" : "s") + ": ";
  if (!r.unjudged.empty()) {
    out += "nothing to judge: " + r.unjudged + "\n";
  } else if (r.findings.empty()) {
    out += "no findings (" + std::to_string(an::check_kinds().size()) + " checks)\n";
  } else {
    out += std::to_string(r.findings.size()) + (r.findings.size() == 1 ? " finding" : " findings") +
           ", worst first\n";
    for (const an::Finding& f : r.findings) {
      out += "\n" + std::string(an::severity_name(f.severity)) + "  " + f.kind + "\n  " + f.message + "\n";
      out += "  open: " + links::link_flags(f.where) + "\n";
    }
  }
  for (const std::string& p : r.rank_problems) out += "\nnot read: " + p + "\n";
  char line[160];
  std::snprintf(line, sizeof line, "\nread %s in %llu chunks (tensor values not read: %s), %.0f ms%s\n",
                fmt::format_bytes(r.cost.bytes_read).c_str(), (unsigned long long)r.cost.chunks_read,
                fmt::format_bytes(r.cost.bytes_skipped).c_str(), r.elapsed_ms,
                r.complete ? "" : "; the run is incomplete (recovered)");
  return out + line;
}

}  // namespace tvis::cli
