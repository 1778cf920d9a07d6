// tvis graph [MODULE:CLASS] [--profile NAME] [--workspace DIR] [--python PATH]
//            [--timeout-ms N] [--out RUNS_DIR] [--json]     (docs/profiles.md)
// tvis graph MODULE:CLASS --setup [--profile NAME] [--no-browser] ...: the
// browser setup form instead (setup_session.h).
// Captures one forward in the isolated worker (as tvis check does) and
// writes it as a run: <RUNS_DIR>/<time>_graph-<Class>_<id>/run.tvis (default
// RUNS_DIR: <workspace>/tvis_runs), laid out by Graphviz dot, with the
// worker's log beside it. The viewers open it on the Graph page. A failed
// forward is written too (the partial graph, the failing call, its
// diagnostic). Exit 0: captured and succeeded; 1: setup or forward failed
// (the run is still written when the forward started); 2: the
// configuration is invalid, the request refused or the run not writable.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "commands.h"
#include "profile_commands.h"
#include "setup_session.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

namespace {

struct GraphArgs {
  CaptureRequestArgs request;
  std::string out;
  bool json = false;
  bool setup = false, no_browser = false, setup_model = false;
  std::string setup_splice;
  std::vector<std::string> argv;
};

int run_graph(const GraphArgs& a) {
  cancel_capture_on_stop_signals();
  const CommandOutcome o = graph_outcome(a.request, a.out, a.argv);
  for (const auto& line : o.problems) std::fprintf(stderr, "tvis graph: %s\n", line.c_str());
  if (a.json) std::printf("%s\n", tvis::safe_json::text(o.json, 2).c_str());
  else std::fputs(o.text.c_str(), stdout);
  return o.exit_code;
}

}  // namespace

void add_graph_command(CLI::App& app) {
  auto a = std::make_shared<GraphArgs>();
  auto* cmd = app.add_subcommand("graph", "Capture one forward of a model as a graph run (opened on the viewer's Graph page)");
  cmd->add_option("target", a->request.target, "MODULE:CLASS (default: the profile's model)");
  cmd->add_option("--profile", a->request.profile, "the profile of tensorviz.toml to run");
  cmd->add_option("--workspace", a->request.workspace, "the workspace root (default: found upward from the current folder)");
  cmd->add_option("--python", a->request.python, "the interpreter to run the model in (default: as for tvis run)");
  cmd->add_option("--timeout-ms", a->request.timeout_ms, "the forward's limit instead of the profile's limits.timeout_ms")
      ->check(CLI::Range(profiles::kTimeoutMinMs, profiles::kTimeoutMaxMs));
  cmd->add_option("--out", a->out, "the runs folder to write into (default: <workspace>/tvis_runs)");
  cmd->add_flag("--recapture", a->request.recapture,
                "capture again even when the saved run of this request is unchanged (default: reopen it as is)");
  cmd->add_flag("--json", a->json, "one JSON object: tvis check's, plus run and layout");
  cmd->add_flag("--setup", a->setup, "open the browser setup form for MODULE:CLASS (setup_session.h) instead of capturing");
  cmd->add_flag("--no-browser", a->no_browser, "with --setup: print the form's URL on stdout's first line");
  cmd->add_flag("--setup-model", a->setup_model,
                "print the setup form's model of MODULE:CLASS as JSON (for editors showing the form; setup_session.h)");
  cmd->add_option("--setup-splice", a->setup_splice,
                  "the setup form's fields (a JSON file, - for stdin): print the save's answer with the new "
                  "tensorviz.toml text, writing nothing");
  cmd->callback([a, cmd] {
    if (a->setup_model || !a->setup_splice.empty()) {
      if (a->setup || a->json || a->no_browser || a->request.timeout_ms || (a->setup_model && !a->setup_splice.empty())) {
        std::fprintf(stderr, "tvis graph: --setup-model / --setup-splice take no other mode flag (--setup, --json, "
                             "--no-browser, --timeout-ms) nor each other\n");
        set_exit_code(2);
        return;
      }
      set_exit_code(print_setup({a->request.target, a->request.profile, a->request.workspace, a->request.python, a->out,
                                 true},
                                a->setup_splice));
      return;
    }
    if (a->setup) {
      if (a->json || a->request.timeout_ms) {
        std::fprintf(stderr, "tvis graph: --setup takes neither --json nor --timeout-ms (the form sets the timeout)\n");
        set_exit_code(2);
        return;
      }
      set_exit_code(run_setup({a->request.target, a->request.profile, a->request.workspace, a->request.python, a->out,
                               a->no_browser}));
      return;
    }
    if (a->no_browser) {
      std::fprintf(stderr, "tvis graph: --no-browser belongs to --setup\n");
      set_exit_code(2);
      return;
    }
    a->argv = graph_argv(a->request);
    set_exit_code(run_graph(*a));
  });
}

}  // namespace tvis::cli
