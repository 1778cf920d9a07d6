// tvis diagnose RUN [--json] [--via H] [--remote-tvis T] [--ssh-config F]:
// what is wrong with a recorded training, worst first (docs/diagnose.md; RUN
// as in tvis/runs/run_resolve.h, or HOST:PATH / a target as for tvis open).
// Exit 0: no error-level finding. Exit 1: at least one. Exit 2: the run
// cannot be read, or holds nothing to judge (the recorder stopped after an
// internal error; no completed step and nothing found), with one line on
// stderr naming the problem. A run.tvis with rank<N>.tvis beside it is read
// with them (the cross-rank checks).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "commands.h"
#include "diagnose_report.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

namespace {

int diagnose(const DiagnoseRequest& request, bool json) {
  DiagnoseReport report;
  std::string error;
  if (!diagnose_run(request, report, &error)) {
    std::fprintf(stderr, "tvis diagnose: %s\n", error.c_str());
    return 2;
  }
  if (!report.unjudged.empty()) {  // never "no findings" for a run that holds nothing to judge
    std::fprintf(stderr, "tvis diagnose: %s: nothing to judge: %s\n", report.path.c_str(), report.unjudged.c_str());
    if (json) std::fputs((tvis::safe_json::text(diagnose_json(report), 2) + "\n").c_str(), stdout);
    return 2;
  }
  const std::string text = json ? tvis::safe_json::text(diagnose_json(report), 2) + "\n" : diagnose_text(report);
  std::fputs(text.c_str(), stdout);
  return report.has_error() ? 1 : 0;
}

}  // namespace

void add_diagnose_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("diagnose", "Say what is wrong with a recorded training, worst first");
  auto req = std::make_shared<DiagnoseRequest>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("RUN", req->what,
                  "run.tvis, its run folder, or a runs folder (newest run); HOST:PATH or a saved target (over ssh)")
      ->required();
  cmd->add_flag("--json", *json, "print the findings as one JSON object (keys in docs/diagnose.md)");
  cmd->add_option("--via", req->via, "jump host (repeatable or comma-separated), as ssh -J")
      ->allow_extra_args(false);  // one value per --via: the argument after it is the run
  cmd->add_option("--remote-tvis", req->remote_tvis, "the tvis program on the remote host (default: tvis)");
  cmd->add_option("--ssh-config", req->ssh_config, "ssh configuration file, passed to every ssh as -F FILE");
  cmd->callback([req, json] { set_exit_code(diagnose(*req, *json)); });
}

}  // namespace tvis::cli
