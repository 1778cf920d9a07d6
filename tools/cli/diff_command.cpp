// tvis diff RUN_A RUN_B [--json] [--atol X] [--rtol Y] [--via H]
// [--remote-tvis T] [--ssh-config F]: where two runs of the same training
// part ways (docs/diagnose.md "tvis diff"; analysis/run_diff.h). Each RUN as
// for tvis diagnose (local, HOST:PATH or a target).
// Exit 0: the runs agree; 1: they differ; 2: a run cannot be read (one line
// on stderr).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "commands.h"
#include "diagnose_report.h"
#include "tvis/analysis/run_diff.h"
#include "tvis/links/page_link.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

namespace {

namespace an = tvis::analysis;
using nlohmann::json;

struct DiffArgs {
  DiagnoseRequest a, b;
  an::DiffOptions options;
  bool json = false;
};

std::string delta_text(const an::TensorDelta& d) {
  char b[256];
  std::snprintf(b, sizeof b, "step %d %-9s %-28s %-13s %-8s %.6g vs %.6g", d.step, d.phase.c_str(),
                (d.module.empty() ? d.name : d.module).c_str(), d.role.c_str(), d.statistic.c_str(), d.a, d.b);
  return b;
}

int diff(DiffArgs& args) {
  an::RunFacts fa, fb;
  RunRead ra, rb;
  std::string error;
  if (!read_run_facts(args.a, fa, ra, &error) || !read_run_facts(args.b, fb, rb, &error)) {
    std::fprintf(stderr, "tvis diff: %s\n", error.c_str());
    return 2;
  }
  const an::RunDiff d = an::diff_runs(fa, fb, args.options);
  if (args.json) {
    std::fputs((tvis::safe_json::text(diff_json(ra, rb, d, args.options), 2) + "\n").c_str(), stdout);
    return d.same() ? 0 : 1;
  }
  std::printf("a: %s\nb: %s\n", ra.path.c_str(), rb.path.c_str());
  std::printf("%llu events matched (%llu only in a, %llu only in b), %llu tensors compared by their statistics\n",
              (unsigned long long)d.events_matched, (unsigned long long)d.events_only_a,
              (unsigned long long)d.events_only_b, (unsigned long long)d.tensors_compared);
  if (d.same()) {
    std::printf("the runs agree: every matched tensor has the same statistics\n");
    return 0;
  }
  if (d.has_first) {
    std::printf("\nfirst difference: %s\n  open: %s\n", delta_text(d.first).c_str(), tvis::links::link_flags(d.first.where).c_str());
    std::printf("\n%llu tensors differ; the largest difference per step and layer:\n",
                (unsigned long long)d.tensors_differing);
    for (const auto& row : d.largest) std::printf("  %s\n", delta_text(row).c_str());
  }
  return 1;
}

}  // namespace

void add_diff_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("diff", "Where two runs of the same training part ways");
  auto args = std::make_shared<DiffArgs>();
  cmd->add_option("RUN_A", args->a.what, "the first run (as for tvis diagnose)")->required();
  cmd->add_option("RUN_B", args->b.what, "the second run")->required();
  cmd->add_flag("--json", args->json, "print the comparison as one JSON object (keys in docs/diagnose.md)");
  cmd->add_option("--atol", args->options.atol, "absolute tolerance per statistic (default 0: exact)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--rtol", args->options.rtol, "relative tolerance per statistic (default 0: exact)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--via", args->a.via, "jump host for remote runs (repeatable or comma-separated), as ssh -J")
      ->allow_extra_args(false);
  cmd->add_option("--remote-tvis", args->a.remote_tvis, "the tvis program on the remote host (default: tvis)");
  cmd->add_option("--ssh-config", args->a.ssh_config, "ssh configuration file, passed to every ssh as -F FILE");
  cmd->callback([args] {
    args->b.via = args->a.via, args->b.remote_tvis = args->a.remote_tvis, args->b.ssh_config = args->a.ssh_config;
    set_exit_code(diff(*args));
  });
}

}  // namespace tvis::cli
