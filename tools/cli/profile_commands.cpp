#include "profile_commands.h"

#include <signal.h>

#include <chrono>
#include <filesystem>

#include "capture_freshness.h"
#include "capture_run_file.h"
#include "interpreter_resolver.h"
#include "python_discovery.h"
#include "tvis/profiles/capture_evidence.h"
#include "tvis/profiles/catalog.h"
#include "tvis/runs/run_folders.h"

namespace tvis::cli {

namespace {

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string class_name(const std::string& model) {
  const auto colon = model.find(':');
  return colon == std::string::npos ? model : model.substr(colon + 1);
}

// A request refused after preparation succeeded (the run folder, the run file): the refusal object of `problem`.
CommandOutcome refused(const CaptureRequestArgs& request, const std::string& problem) {
  PreparedCapture p;
  p.exit_code = 2;
  p.problems = {problem};
  CommandOutcome o;
  o.exit_code = 2;
  o.problems = p.problems;
  o.json = refusal_json(request, p);
  return o;
}

// prepare_capture(), and on refusal the outcome that says why.
bool prepare(const CaptureRequestArgs& request, PreparedCapture* p, CommandOutcome* o) {
  *p = prepare_capture(request);
  if (p->exit_code == 0) return true;
  o->exit_code = p->exit_code;
  o->problems = p->problems;
  o->json = refusal_json(request, *p);
  return false;
}

}  // namespace

CommandOutcome profiles_outcome(const std::string& workspace, const std::string& python) {
  CommandOutcome o;
  const profiles::Workspace w = profiles::find_workspace(workspace, std::filesystem::current_path().string());
  // Reading sources needs no torch: the interpreter check would use (interpreter_resolver.h, the same
  // order), found without running it.
  const std::string py =
      likely_interpreter({python, w.error.empty() ? w.root : "", false}, PythonSearch::from_environment());
  const profiles::Catalog c = profiles::build_catalog(w, py);  // a workspace error: the catalog says only that
  o.exit_code = c.exit_code();
  o.json = profiles::catalog_json(c);
  if (!w.error.empty()) {
    o.problems.push_back(w.error);
    return o;
  }
  o.text = profiles::catalog_text(c);
  if (o.exit_code != 0)
    o.problems.push_back(w.config_path + " is invalid (" + std::to_string(c.config.all_problems().size()) + " problems)");
  return o;
}

CommandOutcome check_outcome(const CaptureRequestArgs& request, const std::string& log) {
  CommandOutcome o;
  PreparedCapture p;
  if (!prepare(request, &p, &o)) return o;
  const profiles::Capture c =
      profiles::run_pinned_capture(p.pin, p.catalog, p.job, log.empty() ? default_log_path("check") : log);
  o.exit_code = c.exit_code();
  o.json = profiles::capture_json(c);
  o.text = profiles::capture_text(c);
  return o;
}

CommandOutcome refused_outcome(const CaptureRequestArgs& request, const std::string& problem) {
  return refused(request, problem);
}

CommandOutcome graph_outcome(const CaptureRequestArgs& request, const std::string& out,
                             const std::vector<std::string>& argv) {
  CommandOutcome o;
  PreparedCapture p;
  if (!prepare(request, &p, &o)) {  // refused: the request's previous graph, if any, is kept and said so
    const profiles::Workspace w = profiles::find_workspace(request.workspace, std::filesystem::current_path().string());
    if (w.error.empty())
      add_retained(previous_capture(out.empty() ? w.root + "/tvis_runs" : out, w.root, asked_json(request)), &o.json, &o.text);
    return o;
  }
  const std::string runs = out.empty() ? p.catalog.workspace.root + "/tvis_runs" : out;
  // The same request again: its saved run is reopened as is while every file it depended on is unchanged.
  const nlohmann::json request_record = request_json(request, p);
  SavedCapture previous = previous_capture(runs, p.catalog.workspace.root, asked_json(request));
  if (!p.pin.file.resolved.empty()) previous.scope.files.push_back(p.pin.file.resolved);  // the interpreter this command runs
  std::string why_not;
  if (!request.recapture && reusable(previous, request_record, &why_not)) {
    o.json = reopened_json(previous);
    o.exit_code = o.json.value("ok", false) ? 0 : 1;
    o.text = "tvis graph: " + previous.run_file + " is unchanged since its capture; reopened as is (--recapture captures again)\n";
    return o;
  }
  if (!previous.run_file.empty() && !request.recapture) o.text = "tvis graph: capturing again: " + why_not + "\n";
  std::string error;
  std::string folder;
  if (runs::ensure_runs_folder(runs, &error)) folder = runs::create_run_folder(runs, "graph-" + class_name(p.job.model), &error);
  if (folder.empty()) return refused(request, error);
  CaptureRunInfo info;
  info.argv = argv;
  info.workspace = p.catalog.workspace.root;
  info.device = p.job.job.value("device", "cpu");
  info.started_unix_ms = now_ms();
  const profiles::Capture c = profiles::run_pinned_capture(p.pin, p.catalog, p.job, folder + "/worker.log");
  info.finished_unix_ms = now_ms();
  if (c.refused || c.cancelled || ((c.stage == "worker" || c.stage == "startup") && c.python_version.empty())) {
    // Refused (the interpreter changed), cancelled (Ctrl-C) or the worker never started: no new run;
    // the previous one stays.
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
    o.exit_code = c.exit_code();
    o.json = profiles::capture_json(c);
    o.json["run"] = nullptr;
    o.text += profiles::capture_text(c);
    add_retained(previous, &o.json, &o.text);
    return o;
  }
  std::vector<LayoutNode> nodes;
  std::vector<LayoutEdge> edges;
  capture_layout_input(c, &nodes, &edges);
  const GraphLayout layout = layout_graph(nodes, edges);
  if (!layout.ok) o.problems.push_back("no layout: " + layout.error);
  o.exit_code = c.exit_code();
  o.json = profiles::capture_json(c);
  o.json["run"] = folder + "/run.tvis";
  o.json["layout"] = layout.ok ? nlohmann::json(layout.engine) : nlohmann::json(nullptr);
  info.request = request_record;
  info.report = o.json;  // what a later `tvis graph` of the same request prints when it reopens this run
  error = write_capture_run(c, layout, info, folder + "/run.tvis");
  if (!error.empty()) return refused(request, error);
  o.text += profiles::capture_text(c) + "tvis graph: recorded " + folder + "/run.tvis (" + std::to_string(nodes.size()) +
            " nodes, " + std::to_string(edges.size()) + " edges)\n";
  return o;
}

void cancel_capture_on_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = [](int) { profiles::request_capture_cancel(); };
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // no SA_RESTART: the worker loop's poll() returns at once; a second signal kills
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

std::vector<std::string> graph_argv(const CaptureRequestArgs& request) {
  std::vector<std::string> argv = {"tvis", "graph"};
  if (!request.target.empty()) argv.push_back(request.target);
  if (!request.profile.empty()) argv.insert(argv.end(), {"--profile", request.profile});
  if (request.timeout_ms > 0) argv.insert(argv.end(), {"--timeout-ms", std::to_string(request.timeout_ms)});
  return argv;
}

}  // namespace tvis::cli
