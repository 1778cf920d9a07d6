// tvis: the command-line front. Subcommands are listed in commands.h.
#include <CLI/CLI.hpp>

#include "commands.h"

namespace tvis::cli {
namespace {
int g_exit_code = 0;
}
void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }
}  // namespace tvis::cli

int main(int argc, char** argv) {
  CLI::App app{"tvis: a step-through debugger for PyTorch training"};
  app.require_subcommand(1);
#define TVIS_ADD_COMMAND(name) tvis::cli::add_##name##_command(app);
  TVIS_COMMANDS(TVIS_ADD_COMMAND)
#undef TVIS_ADD_COMMAND
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;  // usage errors exit 2, like unreadable input
  }
  return tvis::cli::exit_code();
}
