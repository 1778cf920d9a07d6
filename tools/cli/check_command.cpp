// tvis check [MODULE:CLASS] [--profile NAME] [--workspace DIR] [--python PATH]
//            [--timeout-ms N] [--log FILE] [--json]         (docs/profiles.md)
// Runs one forward in the isolated worker and prints the output shapes or
// the failure. Exit 0: setup and forward succeeded; 1: they failed (the
// diagnostic is reported); 2: the configuration is invalid or the request
// refused.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "commands.h"
#include "profile_commands.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

namespace {

struct CheckArgs {
  CaptureRequestArgs request;
  std::string log;
  bool json = false;
};

int run_check(const CheckArgs& a) {
  cancel_capture_on_stop_signals();
  const CommandOutcome o = check_outcome(a.request, a.log);
  for (const auto& line : o.problems) std::fprintf(stderr, "tvis check: %s\n", line.c_str());
  if (a.json) std::printf("%s\n", tvis::safe_json::text(o.json, 2).c_str());
  else std::fputs(o.text.c_str(), stdout);
  return o.exit_code;
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check", "Run one forward of a model profile and report output shapes or the failure");
  cmd->add_option("target", a->request.target, "MODULE:CLASS (default: the profile's model)");
  cmd->add_option("--profile", a->request.profile, "the profile of tensorviz.toml to run");
  cmd->add_option("--workspace", a->request.workspace, "the workspace root (default: found upward from the current folder)");
  cmd->add_option("--python", a->request.python, "the interpreter to run the model in (default: as for tvis run)");
  cmd->add_option("--timeout-ms", a->request.timeout_ms, "the forward's limit instead of the profile's limits.timeout_ms")
      ->check(CLI::Range(profiles::kTimeoutMinMs, profiles::kTimeoutMaxMs));
  cmd->add_option("--log", a->log, "where the worker's tracebacks go (default: ~/.cache/tvis/logs/check-*.log)");
  cmd->add_flag("--json", a->json, "one JSON object (docs/profiles.md)");
  cmd->callback([a] { set_exit_code(run_check(*a)); });
}

}  // namespace tvis::cli
