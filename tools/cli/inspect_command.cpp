// tvis inspect RUN [--json]: what a run holds (docs/cli.md; RUN as in
// tvis/runs/run_resolve.h).
// Exit 0: a readable run (complete, or recovered: then `complete` is false
// and a notice says what was recovered). Exit 2: not readable as a run, with
// one line on stderr naming the problem.
#include <CLI/CLI.hpp>

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <string>

#include "capture_freshness.h"
#include "commands.h"
#include "inspect_json.h"
#include "paths.h"
#include "run_config.h"
#include "tvis/runs/rank_files.h"
#include "tvis/format/byte_source.h"
#include "tvis/format/container_codec.h"
#include "tvis/format/run_reader.h"
#include "tvis/format/run_summary.h"
#include "tvis/runs/run_resolve.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

namespace {

namespace fmt = tvis::format;

std::string utc_time(int64_t unix_ms) {
  const std::time_t t = std::time_t(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string join(const std::vector<std::string>& v, const char* sep, size_t max_items = SIZE_MAX) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < max_items; ++i) out += (i ? sep : "") + v[i];
  if (v.size() > max_items) out += std::string(sep) + "... (" + std::to_string(v.size()) + " in all)";
  return out;
}

void print_human(const std::string& path, const fmt::RunSummary& s) {
  std::printf("%s: tvis run, format %s, %s\n", path.c_str(), s.format_version.c_str(),
              s.complete ? "complete" : "INCOMPLETE (recovered)");
  if (!s.script.empty()) {
    std::vector<std::string> args(s.argv.size() > 1 ? s.argv.begin() + 1 : s.argv.end(), s.argv.end());
    std::printf("  script     %s%s%s\n", s.script.c_str(), args.empty() ? "" : " ", join(args, " ").c_str());
  }
  if (s.started_unix_ms) {
    std::printf("  started    %s", utc_time(s.started_unix_ms).c_str());
    if (s.finished_unix_ms)
      std::printf(" (ran %.1f s, exit code %d)", double(s.finished_unix_ms - s.started_unix_ms) / 1000, s.exit_code);
    std::printf("\n");
  }
  if (!s.device.empty())
    std::printf("  on         %s, Python %s, torch %s, host %s\n", s.device.c_str(), s.python_version.c_str(),
                s.torch_version.c_str(), s.hostname.c_str());
  std::printf("  steps      %" PRId64 "    events %" PRIu64 "    tensors %" PRIu64 "\n", s.steps, s.events,
              s.captured.tensors);
  if (s.has_config)  // the run's configuration (RunMeta.config; an older run's options strings)
    std::printf("  config     %s\n", run_config_json(s.config).c_str());
  std::printf("  modules    %zu: %s\n", s.modules.size(), join(s.modules, ", ", 8).c_str());
  if (!s.functions.empty()) std::printf("  functions  %s\n", join(s.functions, ", ", 8).c_str());
  if (!s.losses.empty()) {
    std::vector<std::string> l;
    for (double v : s.losses) l.push_back(fmt::python_float_repr(v));
    std::printf("  losses     %s\n", join(l, ", ", 10).c_str());
  }
  if (!s.device_reads.empty()) {  // the recorder's waits on the device, per step
    std::vector<std::string> r;
    for (uint32_t v : s.device_reads) r.push_back(std::to_string(v));
    std::printf("  dev reads  %s per step\n", join(r, ", ", 10).c_str());
  }
  uint64_t chunks = 0, raw = 0, stored = 0;
  std::string kinds;
  for (const auto& [name, t] : s.chunks_by_kind) {
    chunks += t.chunks;
    raw += t.raw_bytes;
    stored += t.stored_bytes;
    kinds += (kinds.empty() ? "" : ", ") + name + " " + std::to_string(t.chunks);
  }
  std::printf("  chunks     %" PRIu64 " (%s)\n", chunks, kinds.c_str());
  std::printf("  size       %s on disk; chunks hold %s raw, stored in %s (%.2fx)\n",
              fmt::format_bytes(s.file_bytes).c_str(), fmt::format_bytes(raw).c_str(),
              fmt::format_bytes(stored).c_str(), stored ? double(raw) / double(stored) : 0.0);
  if (s.has_exception) std::printf("  exception  %s\n", s.exception.c_str());
  for (const auto& n : s.notices) std::printf("  notice     %s\n", n.c_str());
}

/// Every rank of the folder holding `path`, when it holds more than one.
std::vector<RankSummary> ranks_beside(const std::string& path) {
  std::vector<RankSummary> out;
  const auto files = runs::rank_files_in(parent_dir(path));
  if (files.size() < 2) return out;
  for (const auto& [rank, file] : files) {
    RankSummary k;
    k.rank = rank;
    auto source = fmt::open_file_source(file);
    auto reader = source.ok() ? fmt::RunReader::open_sync(source.value())
                              : fmt::Result<std::shared_ptr<fmt::RunReader>>(source.status());
    auto summary = reader.ok() ? fmt::summarize_run(*reader.value())
                               : fmt::Result<fmt::RunSummary>(reader.status());
    if (summary.ok()) {
      k.steps = summary.value().steps;
      k.losses = summary.value().losses;
      k.complete = summary.value().complete;
    } else {
      k.error = file + ": " + summary.status().message;
    }
    out.push_back(std::move(k));
  }
  return out;
}

int inspect(const std::string& arg, bool json) {
  auto fail = [](const std::string& what) {
    std::fprintf(stderr, "tvis inspect: %s\n", what.c_str());
    return 2;
  };
  std::string error;
  const std::string path = runs::resolve_run_file(arg, &error);
  if (path.empty()) return fail(error);
  auto source = fmt::open_file_source(path);
  if (!source.ok()) return fail(source.status().message);
  auto reader = fmt::RunReader::open_sync(source.value());
  if (!reader.ok()) return fail(path + ": " + reader.status().message);
  auto summary = fmt::summarize_run(*reader.value());
  if (!summary.ok()) return fail(path + ": " + summary.status().message);
  const std::vector<RankSummary> ranks = ranks_beside(path);
  if (json) {
    std::string text = inspect_json(summary.value(), ranks);
    if (summary.value().profile_captures > 0) {  // a tvis graph run: is its evidence still what it was?
      nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
      if (j.is_object()) {
        j["freshness"] = run_freshness_json(path);
        text = tvis::safe_json::text(j, 2) + "\n";
      }
    }
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  print_human(path, summary.value());
  for (const RankSummary& k : ranks) {
    std::vector<std::string> l;
    for (double v : k.losses) l.push_back(fmt::python_float_repr(v));
    if (k.error.empty())
      std::printf("  rank %-4d  %d steps%s, losses %s\n", k.rank, k.steps, k.complete ? "" : " (recovered)",
                  join(l, ", ", 10).c_str());
    else
      std::printf("  rank %-4d  unreadable: %s\n", k.rank, k.error.c_str());
  }
  return 0;
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("inspect", "Print what a run holds");
  auto run = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("RUN", *run, "run.tvis, its run folder, or a runs folder (newest run)")->required();
  cmd->add_flag("--json", *json, "print the run summary as one JSON object (keys in docs/cli.md)");
  cmd->callback([run, json] { set_exit_code(inspect(*run, *json)); });
}

}  // namespace tvis::cli
