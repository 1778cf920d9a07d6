// tvis diagnose RUN [--json]: what is wrong with a recorded training, worst
// first (docs/diagnose.md; RUN as in tvis/runs/run_resolve.h).
// Exit 0: no error-level finding. Exit 1: at least one. Exit 2: the run
// cannot be read, with one line on stderr naming the problem.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "commands.h"
#include "diagnose_report.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

namespace {

int diagnose(const std::string& run, bool json) {
  DiagnoseReport report;
  std::string error;
  if (!diagnose_run(run, report, &error)) {
    std::fprintf(stderr, "tvis diagnose: %s\n", error.c_str());
    return 2;
  }
  const std::string text = json ? tvis::safe_json::text(diagnose_json(report), 2) + "\n" : diagnose_text(report);
  std::fputs(text.c_str(), stdout);
  return report.has_error() ? 1 : 0;
}

}  // namespace

void add_diagnose_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("diagnose", "Say what is wrong with a recorded training, worst first");
  auto run = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("RUN", *run, "run.tvis, its run folder, or a runs folder (newest run)")->required();
  cmd->add_flag("--json", *json, "print the findings as one JSON object (keys in docs/diagnose.md)");
  cmd->callback([run, json] { set_exit_code(diagnose(*run, *json)); });
}

}  // namespace tvis::cli
