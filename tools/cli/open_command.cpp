// tvis open [--no-browser] [--via HOST]... [--remote-tvis PATH] [--ssh-config FILE]
//           (LOCAL_PATH | HOST:PATH | TARGET)      (docs/cli.md; the work is open_session.h)
#include <CLI/CLI.hpp>

#include "capture_freshness.h"
#include "commands.h"
#include "open_session.h"
#include "tvis/json/safe.h"

namespace tvis::cli {

void add_open_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("open", "Serve runs (local, HOST:PATH over ssh, or a saved target) to the browser viewer");
  auto req = std::make_shared<OpenRequest>();
  cmd->add_option("WHERE", req->what, "a runs folder, run folder or run.tvis; HOST:PATH; or a saved target's name")->required();
  cmd->add_flag("--no-browser", req->no_browser, "print the URL on stdout's first line instead of opening a browser");
  cmd->add_option("--via", req->via, "jump host (repeatable or comma-separated), as ssh -J")
      ->allow_extra_args(false);  // one value per --via: the argument after it is the target
  cmd->add_option("--remote-tvis", req->remote_tvis, "the tvis program on the remote host (default: tvis)");
  cmd->add_option("--ssh-config", req->ssh_config, "ssh configuration file, passed to every ssh as -F FILE");
  req->freshness = [](const std::string& run_file) { return tvis::safe_json::text(run_freshness_json(run_file)); };
  cmd->callback([req] { set_exit_code(run_open(*req)); });
}

}  // namespace tvis::cli
