// commands.h: the subcommands of `tvis`. Each lives in its own
// <name>_command.cpp and registers itself on the root app; main.cpp calls the
// functions listed in TVIS_COMMANDS below. Adding a command: write
// <name>_command.cpp defining add_<name>_command, add it to CMakeLists.txt,
// and add `X(name)` to TVIS_COMMANDS.
//
// A command's callback sets its process exit code with set_exit_code();
// commands report problems as ONE line on stderr ("tvis <cmd>: <problem>").
#pragma once

namespace CLI {
class App;
}

namespace tvis::cli {

#define TVIS_COMMANDS(X) \
  X(agent)               \
  X(check)               \
  X(diagnose)            \
  X(diff)                \
  X(graph)               \
  X(inspect)             \
  X(mcp)                 \
  X(open)                \
  X(profiles)            \
  X(run)                 \
  X(target)

#define TVIS_DECLARE_COMMAND(name) void add_##name##_command(CLI::App& app);
TVIS_COMMANDS(TVIS_DECLARE_COMMAND)
#undef TVIS_DECLARE_COMMAND

/// The exit code main() returns once the chosen command's callback is done.
void set_exit_code(int code);
int exit_code();

}  // namespace tvis::cli
