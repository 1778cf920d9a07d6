// tvis mcp's protocol layer (mcp_protocol.h, mcp_arguments.h) with a tool
// defined here: what the stdio session in tests/profiles/test_mcp.sh cannot
// reach cheaply (a tool that throws, an over-long line, a last line without
// its newline, responses and blank lines ignored) and the schema checks'
// edge cases.
#include <catch2/catch.hpp>

#include <poll.h>
#include <unistd.h>

#include <future>
#include <stdexcept>
#include <thread>

#include "mcp_arguments.h"
#include "mcp_protocol.h"

using namespace tvis::cli::mcp;
using nlohmann::json;

namespace {

const json kSchema = {{"type", "object"},
                      {"properties", {{"n", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10}}}, {"s", {{"type", "string"}, {"minLength", 1}}}}},
                      {"required", json::array({"n"})},
                      {"additionalProperties", false}};

Server test_server(std::vector<std::string>* log) {
  Tool echo{"echo", "", "returns its arguments", kSchema, nullptr,
            [](const json& a) { return ToolResult{{{"got", a}}, a.value("n", 0) > 5}; }};
  Tool boom{"boom", "", "throws", {{"type", "object"}}, nullptr,
            [](const json&) -> ToolResult { throw std::runtime_error("kaput"); }};
  return Server({"tvis", "9.9", ""}, {echo, boom}, [log](const std::string& l) { log->push_back(l); });
}

json call(Server& s, const std::string& line) {
  auto r = s.handle_line(line);
  REQUIRE(r.has_value());
  return *r;
}

const std::string kInit =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}})";

/// What serve() writes for `input`, read from a temporary file (a line can be
/// larger than a pipe's buffer).
std::string serve_text(Server& s, const std::string& input) {
  int out[2];
  REQUIRE(pipe(out) == 0);
  char path[] = "/tmp/tvis-mcp-input.XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, input.data(), input.size()) == static_cast<ssize_t>(input.size()));
  REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
  unlink(path);
  REQUIRE(serve(fd, out[1], s, kMaxLineBytes) == 0);
  close(fd);
  close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(out[0]);
  return text;
}

}  // namespace

TEST_CASE("mcp: the lifecycle, notifications and responses never answered") {
  std::vector<std::string> log;
  Server s = test_server(&log);
  CHECK(call(s, R"({"jsonrpc":"2.0","id":"a","method":"tools/list"})")["error"]["code"] == kNotInitialized);
  CHECK_FALSE(s.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  json init = call(s, kInit);
  CHECK(init["result"]["protocolVersion"] == "2025-03-26");
  CHECK(init["result"]["serverInfo"]["version"] == "9.9");
  CHECK(s.initialized());
  CHECK_FALSE(s.handle_line("   \r"));
  CHECK_FALSE(s.handle_line(R"({"jsonrpc":"2.0","id":7,"result":{}})"));  // a response from the client
  CHECK_FALSE(s.handle_line(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"boom"}})"));  // a notification runs nothing
  json list = call(s, R"({"jsonrpc":"2.0","id":"a","method":"tools/list"})");
  CHECK(list["id"] == "a");
  REQUIRE(list["result"]["tools"].size() == 2);
  CHECK(list["result"]["tools"][0]["inputSchema"] == kSchema);
  CHECK_FALSE(list["result"]["tools"][0].contains("outputSchema"));
  CHECK(call(s, R"({"jsonrpc":"2.0","id":null,"method":"ping"})")["error"]["code"] == kInvalidRequest);
  CHECK(call(s, R"({"jsonrpc":"2.0","id":2,"method":5})")["error"]["code"] == kInvalidRequest);
  CHECK(call(s, R"({"jsonrpc":"2.0","id":2})")["error"]["code"] == kInvalidRequest);
  CHECK(call(s, "17")["error"]["code"] == kInvalidRequest);
  CHECK(call(s, "[]")["error"]["code"] == kInvalidRequest);
  CHECK(call(s, "{\"a\":")["error"]["code"] == kParseError);
  CHECK(call(s, "\"\xff\"")["error"]["code"] == kParseError);  // not UTF-8
}

TEST_CASE("mcp: tools/call results, tool errors and argument errors") {
  std::vector<std::string> log;
  Server s = test_server(&log);
  call(s, kInit);
  json r = call(s, R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"n":2}}})");
  CHECK(r["result"]["isError"] == false);
  CHECK(r["result"]["structuredContent"] == json({{"got", {{"n", 2}}}}));
  CHECK(json::parse(r["result"]["content"][0]["text"].get<std::string>()) == r["result"]["structuredContent"]);
  r = call(s, R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"n":7.0}}})");
  CHECK(r["result"]["isError"] == true);  // the tool's own failure is a result
  r = call(s, R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"n":11}}})");
  CHECK(r["error"]["code"] == kInvalidParams);
  CHECK(r["error"]["message"] == "echo: arguments.n: 11 is more than the maximum 10");
  r = call(s, R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo"}})");
  CHECK(r["error"]["message"] == "echo: arguments: n is required");
  r = call(s, R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"boom","arguments":{}}})");
  CHECK(r["error"]["code"] == kInternalError);
  CHECK(r["error"]["message"] == "internal error: kaput");
  r = call(s, R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope"}})");
  CHECK(r["error"]["message"] == "unknown tool 'nope' (tools: echo, boom)");
  CHECK(call(s, R"({"jsonrpc":"2.0","id":9,"method":"prompts/list"})")["error"]["code"] == kMethodNotFound);
  CHECK(log.back().find("prompts/list id 9: error -32601") != std::string::npos);
}

TEST_CASE("mcp: check_arguments") {
  CHECK(check_arguments(kSchema, {{"n", 1}, {"s", "x"}}) == "");
  CHECK(check_arguments(kSchema, {{"n", 1.5}}) == "arguments.n: must be integer, not number");
  CHECK(check_arguments(kSchema, {{"n", 0}}) == "arguments.n: 0 is less than the minimum 1");
  CHECK(check_arguments(kSchema, {{"n", 1}, {"s", ""}}) == "arguments.s: must have at least 1 characters");
  CHECK(check_arguments(kSchema, {{"n", 1}, {"x", true}}) == "arguments: unknown argument 'x' (known: n, s)");
  CHECK(check_arguments(kSchema, json::array()) == "arguments: must be object, not array");
  CHECK(check_arguments({{"type", json::array({"string", "null"})}}, nullptr) == "");
  CHECK(check_arguments({{"enum", json::array({"a", "b"})}}, "c") == "arguments: \"c\" is not one of [\"a\",\"b\"]");
  CHECK(check_arguments({{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}}, {{"a", 1}}) ==
        "arguments: unknown argument 'a' (this tool takes none)");
}

TEST_CASE("mcp: serve reads lines to the end, refuses an over-long one and keeps going") {
  std::vector<std::string> log;
  Server s = test_server(&log);
  int in[2], out[2];
  REQUIRE(pipe(in) == 0);
  REQUIRE(pipe(out) == 0);
  const std::string input = kInit + "\n\n" + std::string(300, ' ') + "{\"x\":\"" + std::string(200, 'y') + "\"}\n" +
                            R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\r\n" +
                            R"({"jsonrpc":"2.0","id":3,"method":"ping"})";  // no newline at the end
  REQUIRE(write(in[1], input.data(), input.size()) == static_cast<ssize_t>(input.size()));
  close(in[1]);
  CHECK(serve(in[0], out[1], s, 256) == 0);
  close(out[1]);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  close(in[0]);
  close(out[0]);
  std::vector<json> lines;
  for (size_t a = 0, b; (b = got.find('\n', a)) != std::string::npos; a = b + 1) lines.push_back(json::parse(got.substr(a, b - a)));
  REQUIRE(lines.size() == 4);
  CHECK(lines[0]["id"] == 1);
  CHECK(lines[1]["error"]["code"] == kInvalidRequest);
  CHECK(lines[1]["error"]["message"] == "message longer than 256 bytes: refused");
  CHECK(lines[2]["id"] == 2);
  CHECK(lines[3]["id"] == 3);
}

// Issue 29 item 2: a line nested 60,000 deep (in id, params or jsonrpc) crashed tvis mcp with
// SIGSEGV (recursive copy/dump of the parsed value). Nesting is bounded before parsing: -32700,
// and the server goes on answering. tests/fuzz/corpus_mcp/ keeps these lines for fuzz_mcp_line.
TEST_CASE("mcp: JSON nested 60,000 deep is refused before parsing, in any field") {
  std::vector<std::string> log;
  Server s = test_server(&log);
  const std::string deep_open(60000, '['), deep_close(60000, ']');
  for (const std::string& line :
       {R"({"jsonrpc":"2.0","id":)" + deep_open + deep_close + R"(,"method":"ping"})",
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":)" + deep_open + deep_close + "}}",
        R"({"jsonrpc":)" + deep_open + deep_close + R"(,"id":1,"method":"ping"})",
        std::string(60000, '{'),                                  // unterminated
        R"({"jsonrpc":"2.0","id":1,"method":"ping","x":")" + deep_open + R"("})"}) {  // brackets inside a string count not
    const std::string input = line + "\n" + R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\n";
    const std::string text = serve_text(s, input);
    const size_t nl = text.find('\n');
    REQUIRE(nl != std::string::npos);
    const json first = json::parse(text.substr(0, nl));
    const json second = json::parse(text.substr(nl + 1));
    if (line.find(R"("x":")") != std::string::npos) {
      CHECK(first["result"] == json::object());  // deep brackets inside a string are only text
    } else {
      CHECK(first["error"]["code"] == kParseError);
      CHECK(first["id"].is_null());
    }
    CHECK(second["id"] == 2);
    CHECK(second["result"] == json::object());
  }
}

// Issue 29 item 5: a tool result holding bytes that are not UTF-8 (a path) is answered, not thrown.
TEST_CASE("mcp: a tool result with invalid UTF-8 is sent with U+FFFD") {
  std::vector<std::string> log;
  Tool bytes{"bytes", "", "returns a path that is not UTF-8", {{"type", "object"}}, nullptr,
             [](const json&) { return ToolResult{{{"workspace", std::string("/tmp/ws\xff\xfe")}}, false}; }};
  Server s({"tvis", "9.9", ""}, {bytes}, [&log](const std::string& l) { log.push_back(l); });
  call(s, kInit);
  const std::string text =
      serve_text(s, R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bytes"}})" "\n");
  const json r = json::parse(text);
  CHECK(r["result"]["structuredContent"]["workspace"] == "/tmp/ws\xEF\xBF\xBD\xEF\xBF\xBD");
}

// Issue 46 (finding 6): a tool call that takes long (an interpreter probe, a worker) runs off serve()'s reading
// loop: ping is answered while it runs, and the call's own response still comes, before serve() returns.
TEST_CASE("mcp: serve answers ping while a tool call runs, then the call") {
  std::vector<std::string> log;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  Tool slow{"slow", "", "waits until released", {{"type", "object"}}, nullptr, [released](const json&) {
              released.wait();
              return ToolResult{{{"done", true}}, false};
            }};
  Server s({"tvis", "9.9", ""}, {slow}, [&log](const std::string& l) { log.push_back(l); });
  int in[2], out[2];
  REQUIRE(pipe(in) == 0);
  REQUIRE(pipe(out) == 0);
  int rc = -1;
  std::thread server([&] { rc = serve(in[0], out[1], s, kMaxLineBytes); });
  const std::string input = kInit + "\n" + R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}})" "\n" +
                            R"({"jsonrpc":"2.0","id":3,"method":"ping"})" "\n";
  REQUIRE(write(in[1], input.data(), input.size()) == static_cast<ssize_t>(input.size()));
  // Reads one response line, waiting at most 5 s (an empty string when none came).
  std::string pending;
  auto next_line = [&]() -> std::string {
    for (;;) {
      const size_t nl = pending.find('\n');
      if (nl != std::string::npos) {
        std::string line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        return line;
      }
      pollfd p{out[0], POLLIN, 0};
      if (poll(&p, 1, 5000) != 1) return "";
      char buf[4096];
      const ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) return "";
      pending.append(buf, static_cast<size_t>(n));
    }
  };
  CHECK(json::parse(next_line())["id"] == 1);
  const std::string ping = next_line();  // the call is still blocked: this must be the ping's answer
  REQUIRE_FALSE(ping.empty());
  CHECK(json::parse(ping)["id"] == 3);
  release.set_value();
  close(in[1]);  // end of input while the call's response may still be on its way: it is written before serve() returns
  const std::string called = next_line();
  REQUIRE_FALSE(called.empty());
  CHECK(json::parse(called)["id"] == 2);
  CHECK(json::parse(called)["result"]["structuredContent"]["done"] == true);
  server.join();
  CHECK(rc == 0);
  close(in[0]);
  close(out[0]);
  close(out[1]);
}
