// mcp_protocol.h: the Model Context Protocol as `tvis mcp` speaks it
// (docs/cli.md "tvis mcp"): JSON-RPC 2.0 messages, one per line, and the
// MCP lifecycle and tool methods. The tools themselves are given to the
// Server (mcp_tools.h); nothing here knows what they do.
//
// Contracts:
//   - handle_line() answers every request with exactly one response and
//     never answers a notification (a message without an id) or a response.
//   - Errors: malformed JSON or JSON nested deeper than safe_json::kMaxDepth
//     (64, refused before parsing) -32700 (id null); not one JSON-RPC 2.0 request
//     object, a batch (an array) or an over-long line -32600; an unknown
//     method -32601; bad params, an unknown tool or arguments that do not
//     match the tool's inputSchema -32602; any request but `initialize` and
//     `ping` before `initialize` -32002; a tool that throws -32603.
//   - initialize answers the client's protocolVersion when it is one of
//     supported_protocols(), else the latest; a second initialize is -32600.
//   - A tool's failure (a failed check, a refused setup) is a result with
//     isError true, not a protocol error.
//   - serve() writes responses, one line each, to out_fd only; it returns 0
//     at the end of input (once every call read has been answered) and 1
//     when it cannot write (the client is gone) or read.
//   - serve() runs tool calls off its reading loop, on one call thread, one
//     at a time in the order they came: while a call runs (a worker, an
//     interpreter probe), `ping`, `initialize`, `tools/list` and refused
//     requests are answered at once, so a call's response may come after
//     responses to later requests (JSON-RPC matches them by id).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tvis::cli::mcp {

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kNotInitialized = -32002;

/// The longest message line read (longer ones are refused, -32600).
constexpr size_t kMaxLineBytes = 16u << 20;

/// The protocol revisions this server speaks, newest first.
const std::vector<std::string>& supported_protocols();

struct ToolResult {
  nlohmann::json structured;  // the tool's JSON object (structuredContent; its text is content[0].text)
  bool is_error = false;      // a failed check, a refused setup
};

struct Tool {
  std::string name, title, description;
  nlohmann::json input_schema;             // a JSON Schema object (mcp_arguments.h checks calls against it)
  nlohmann::json output_schema = nullptr;  // the structured result's schema, or null
  std::function<ToolResult(const nlohmann::json& arguments)> call;
};

struct ServerInfo {
  std::string name, version, instructions;
};

/// What one input line asks for: `now`, the response to write at once (or
/// nothing), or `later`, a tool call whose response it returns when run
/// (serve() runs it on its call thread). Never both.
struct Dispatch {
  std::optional<nlohmann::json> now;
  std::function<nlohmann::json()> later;
};

class Server {
 public:
  /// `log` receives one line per message handled (no newline).
  Server(ServerInfo info, std::vector<Tool> tools, std::function<void(const std::string&)> log);

  /// One input line (without its newline): the response to write, or
  /// nullopt (a notification, a response, a blank line).
  std::optional<nlohmann::json> handle_line(std::string_view line);

  /// The same, with a tool call left to be run (Dispatch::later): it only
  /// reads the Server's tools and log, so it may run on another thread while
  /// this one goes on dispatching lines.
  Dispatch dispatch_line(std::string_view line);

  bool initialized() const { return initialized_; }

 private:
  Dispatch handle_request(const std::string& method, const nlohmann::json& id, const nlohmann::json& params);
  nlohmann::json initialize(const nlohmann::json& id, const nlohmann::json& params);
  nlohmann::json tools_list(const nlohmann::json& id) const;
  Dispatch tools_call(const nlohmann::json& id, const nlohmann::json& params);
  void log_answer(const std::string& method, const nlohmann::json& id, const nlohmann::json& response, double ms);
  void notification(const std::string& method);

  ServerInfo info_;
  std::vector<Tool> tools_;
  std::function<void(const std::string&)> log_;
  bool initialized_ = false;
  std::string protocol_;
};

/// A JSON-RPC error response.
nlohmann::json error_response(const nlohmann::json& id, int code, const std::string& message);

/// Reads lines from `in_fd` until end of input, hands each to the server and
/// writes each response as one line to `out_fd`; tool calls run on one call
/// thread of its own (the contracts above).
int serve(int in_fd, int out_fd, Server& server, size_t max_line_bytes = kMaxLineBytes);

}  // namespace tvis::cli::mcp
