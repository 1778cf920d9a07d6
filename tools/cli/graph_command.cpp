// tvis graph [MODULE:CLASS] [--profile NAME] [--workspace DIR] [--python PATH]
//            [--out RUNS_DIR]                                (docs/profiles.md)
// Captures one forward in the isolated worker (as tvis check does) and
// writes it as a run: <RUNS_DIR>/<time>_graph-<Class>_<id>/run.tvis (default
// RUNS_DIR: <workspace>/tvis_runs), laid out by Graphviz dot, with the
// worker's log beside it. The viewers open it on the Graph page. A failed
// forward is written too (the partial graph, the failing call, its
// diagnostic). Exit 0: captured and succeeded; 1: setup or forward failed
// (the run is still written when the forward started); 2: the
// configuration is invalid, the request refused or the run not writable.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>

#include "capture_request.h"
#include "capture_run_file.h"
#include "commands.h"
#include "tvis/runs/run_folders.h"

namespace tvis::cli {

namespace {

struct GraphArgs {
  CaptureRequestArgs request;
  std::string out;
  bool json = false;
  std::vector<std::string> argv;
};

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string class_name(const std::string& model) {
  const auto colon = model.find(':');
  return colon == std::string::npos ? model : model.substr(colon + 1);
}

int run_graph(const GraphArgs& a) {
  PreparedCapture p = prepare_capture(a.request);
  if (p.exit_code != 0) {
    for (const auto& line : p.problems) std::fprintf(stderr, "tvis graph: %s\n", line.c_str());
    if (a.json) std::printf("%s\n", refusal_json(a.request, p).dump(2).c_str());
    return p.exit_code;
  }
  const std::string runs = a.out.empty() ? p.catalog.workspace.root + "/tvis_runs" : a.out;
  std::string error;
  std::string folder;
  if (runs::ensure_runs_folder(runs, &error)) folder = runs::create_run_folder(runs, "graph-" + class_name(p.job.model), &error);
  if (folder.empty()) {
    std::fprintf(stderr, "tvis graph: %s\n", error.c_str());
    return 2;
  }
  CaptureRunInfo info;
  info.argv = a.argv;
  info.workspace = p.catalog.workspace.root;
  info.device = p.job.job.value("device", "cpu");
  info.started_unix_ms = now_ms();
  const profiles::Capture c = profiles::run_capture(p.python, p.job, folder + "/worker.log");
  info.finished_unix_ms = now_ms();
  std::vector<LayoutNode> nodes;
  std::vector<LayoutEdge> edges;
  capture_layout_input(c, &nodes, &edges);
  const GraphLayout layout = layout_graph(nodes, edges);
  if (!layout.ok) std::fprintf(stderr, "tvis graph: no layout: %s\n", layout.error.c_str());
  error = write_capture_run(c, layout, info, folder + "/run.tvis");
  if (!error.empty()) {
    std::fprintf(stderr, "tvis graph: %s\n", error.c_str());
    return 2;
  }
  if (a.json) {
    nlohmann::json j = profiles::capture_json(c);
    j["run"] = folder + "/run.tvis";
    j["layout"] = layout.ok ? nlohmann::json(layout.engine) : nlohmann::json(nullptr);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fputs(profiles::capture_text(c).c_str(), stdout);
    std::printf("tvis graph: recorded %s/run.tvis (%zu nodes, %zu edges)\n", folder.c_str(), nodes.size(), edges.size());
  }
  return c.exit_code();
}

}  // namespace

void add_graph_command(CLI::App& app) {
  auto a = std::make_shared<GraphArgs>();
  auto* cmd = app.add_subcommand("graph", "Capture one forward of a model as a graph run (opened on the viewer's Graph page)");
  cmd->add_option("target", a->request.target, "MODULE:CLASS (default: the profile's model)");
  cmd->add_option("--profile", a->request.profile, "the profile of tensorviz.toml to run");
  cmd->add_option("--workspace", a->request.workspace, "the workspace root (default: found upward from the current folder)");
  cmd->add_option("--python", a->request.python, "the interpreter to run the model in (default: as for tvis run)");
  cmd->add_option("--out", a->out, "the runs folder to write into (default: <workspace>/tvis_runs)");
  cmd->add_flag("--json", a->json, "one JSON object: tvis check's, plus run and layout");
  cmd->callback([a, cmd] {
    a->argv = {"tvis", "graph"};
    for (const auto& s : cmd->remaining()) a->argv.push_back(s);
    if (!a->request.target.empty()) a->argv.push_back(a->request.target);
    if (!a->request.profile.empty()) a->argv.insert(a->argv.end(), {"--profile", a->request.profile});
    set_exit_code(run_graph(*a));
  });
}

}  // namespace tvis::cli
