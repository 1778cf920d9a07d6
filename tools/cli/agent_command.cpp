// tvis agent --stdio PATH: the remote end of `tvis open HOST:PATH`
// (remote/agent.h). Speaks only the framed protocol on stdout; messages go to
// stderr. TVIS_AGENT_PROTOCOL_VERSION (tests only) announces another version.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "commands.h"
#include "tvis/remote/agent.h"
#include "tvis/remote/protocol.h"

namespace tvis::cli {

void add_agent_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("agent", "Serve the runs under PATH over stdin/stdout (started by tvis open through ssh)");
  auto path = std::make_shared<std::string>();
  auto stdio = std::make_shared<bool>(false);
  cmd->add_flag("--stdio", *stdio, "speak the agent protocol on stdin/stdout (the only transport)");
  cmd->add_option("PATH", *path, "the runs folder, run folder or run.tvis served (nothing outside it)")->required();
  cmd->callback([path, stdio] {
    if (!*stdio) {
      std::fprintf(stderr, "tvis agent: only --stdio is supported: tvis agent --stdio PATH\n");
      set_exit_code(2);
      return;
    }
    remote::AgentOptions options{remote::kProtocolVersion};
    if (const char* v = std::getenv("TVIS_AGENT_PROTOCOL_VERSION"); v && *v) options.version = uint32_t(std::strtoul(v, nullptr, 10));
    set_exit_code(remote::serve_agent(*path, STDIN_FILENO, STDOUT_FILENO, options));
  });
}

}  // namespace tvis::cli
