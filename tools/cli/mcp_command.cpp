// tvis mcp [--workspace DIR] [--python PATH] [--log FILE]      (docs/cli.md)
// A Model Context Protocol server on stdin/stdout (mcp_protocol.h) with the
// tools profiles, check and graph (mcp_tools.h) on one workspace. stdout
// carries only protocol messages: the process's own fd 1 is pointed at the
// log (--log FILE, else stderr) for the whole session, so nothing printed
// by accident can reach the client. Exit 0 at the end of input; 1 when the
// client stops reading; 2 before serving (a workspace that is not a
// folder, a --python that is not executable, a --log that cannot be
// opened), one line on stderr.
#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "commands.h"
#include "mcp_tools.h"
#include "process.h"
#include "tvis/profiles/workspace.h"

#ifndef TVIS_VERSION
#define TVIS_VERSION "0"
#endif

namespace tvis::cli {

namespace {

struct McpArgs {
  std::string workspace, python, log;
};

int fail(const std::string& line) {
  std::fprintf(stderr, "tvis mcp: %s\n", line.c_str());
  return 2;
}

int run_mcp(const McpArgs& a) {
  const profiles::Workspace w = profiles::find_workspace(a.workspace, std::filesystem::current_path().string());
  if (!w.error.empty()) return fail(w.error);
  if (!a.python.empty() && !is_executable(a.python)) return fail("--python " + a.python + " is not an executable file");
  int log_fd = 2;
  if (!a.log.empty()) {
    log_fd = ::open(a.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) return fail("cannot open --log " + a.log + ": " + std::strerror(errno));
  }
  // The protocol's own copy of stdout (not inherited by workers); fd 1 becomes the log.
  std::fflush(stdout);
  const int protocol_fd = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (protocol_fd < 0) return fail(std::string("cannot duplicate stdout: ") + std::strerror(errno));
  ::dup2(log_fd, 1);
  ::signal(SIGPIPE, SIG_IGN);  // a client that went away is a failed write, not a signal
  FILE* log = log_fd == 2 ? stderr : ::fdopen(log_fd, "a");
  auto log_line = [log](const std::string& line) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::fprintf(log, "tvis mcp %s: %s\n", stamp, line.c_str());
    std::fflush(log);
  };
  log_line("serving workspace " + w.root + " on stdio");
  mcp::Server server({"tvis", TVIS_VERSION,
                      "Model profiles of the workspace " + w.root +
                          ": `profiles` lists them and the model classes; `check` runs one forward and explains a "
                          "failure with typed diagnostics (stage, field, parameter names, operand shapes and dtypes); "
                          "`graph` captures the forward as a run for the tvis viewers; `diagnose` says what is wrong "
                          "with a recorded training and `diff` where two recorded runs part ways."},
                     profile_tools({w.root, a.python, log_line}), log_line);
  const int rc = mcp::serve(0, protocol_fd, server);
  log_line(rc == 0 ? "end of input: stopped" : "the client stopped reading: stopped");
  return rc;
}

}  // namespace

void add_mcp_command(CLI::App& app) {
  auto a = std::make_shared<McpArgs>();
  auto* cmd = app.add_subcommand("mcp", "Serve profiles, check and graph to agents: a Model Context Protocol server on stdio");
  cmd->add_option("--workspace", a->workspace, "the workspace root (default: found upward from the current folder)");
  cmd->add_option("--python", a->python, "the interpreter to run models in (default: as for tvis run, per call)");
  cmd->add_option("--log", a->log, "where the server's log goes (default: stderr)");
  cmd->callback([a] { set_exit_code(run_mcp(*a)); });
}

}  // namespace tvis::cli
