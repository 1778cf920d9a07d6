// mcp_tools.h: the tools of `tvis mcp` (docs/cli.md "tvis mcp"): `profiles`,
// `check` and `graph`, each the command of the same name run through
// profile_commands.h, so a tool returns exactly the object `tvis <name>
// --json` prints. isError is true when that command would exit non-zero
// (an invalid configuration, a failed setup or forward, a refused request).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mcp_protocol.h"

namespace tvis::cli {

struct McpToolsSetup {
  std::string workspace;  // the workspace root every call works on
  std::string python;     // --python, or "" (chosen per call as the commands do)
  std::function<void(const std::string&)> log;  // what a command would print on stderr
};

std::vector<mcp::Tool> profile_tools(const McpToolsSetup& setup);

}  // namespace tvis::cli
