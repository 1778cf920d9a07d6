// fuzz_mcp_line: tvis mcp's JSON-RPC lines (tools/cli/mcp_protocol.cpp, mcp_arguments.cpp) as a
// client, or anything on its stdin, sends them (issue 29 item 2: a line nested 60,000 deep crashed
// the server). Each input is split into lines; every line goes through Server::handle_line with a
// tool whose schema exercises the argument checks, and each response is serialized as serve()
// would. Crafted lines: tests/fuzz/corpus_mcp/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mcp_protocol.h"
#include "tvis/json/safe.h"

using nlohmann::json;
using namespace tvis::cli::mcp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const json schema = {
      {"type", "object"},
      {"properties",
       {{"n", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10}}},
        {"s", {{"type", "string"}, {"minLength", 1}}},
        {"b", {{"type", "boolean"}}}}},
      {"additionalProperties", false}};
  Tool echo{"echo", "", "echo", schema, nullptr, [](const json& a) { return ToolResult{{{"got", a}}, false}; }};
  Server server({"tvis", "0", ""}, {echo}, [](const std::string&) {});
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  size_t start = 0;
  while (start <= all.size()) {
    size_t nl = all.find('\n', start);
    if (nl == std::string_view::npos) nl = all.size();
    const std::optional<json> r = server.handle_line(all.substr(start, nl - start));
    if (r) (void)tvis::safe_json::text(*r);
    start = nl + 1;
  }
  return 0;
}
