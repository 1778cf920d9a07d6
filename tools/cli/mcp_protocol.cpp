#include "mcp_protocol.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "mcp_arguments.h"
#include "tvis/json/safe.h"

namespace tvis::cli::mcp {

namespace {

using nlohmann::json;

json result_response(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

std::string id_text(const json& id) { return safe_json::text(id); }

bool is_blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}

// write(2) all of `data`, retried on EINTR; false when the other end is gone.
bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Writes responses, one line each, from the reading loop and the call thread alike; false once a write failed.
class ResponseWriter {
 public:
  explicit ResponseWriter(int fd) : fd_(fd) {}
  bool write(const json& response) {
    std::lock_guard<std::mutex> hold(mutex_);
    if (failed_) return false;
    if (!write_all(fd_, safe_json::text(response) + "\n")) failed_ = true;
    return !failed_;
  }
  bool failed() {
    std::lock_guard<std::mutex> hold(mutex_);
    return failed_;
  }

 private:
  int fd_;
  std::mutex mutex_;
  bool failed_ = false;
};

// serve()'s call thread: tool calls run one at a time, in the order queued, off the reading loop, each
// response written as soon as it is ready. The thread lives as long as serve(), so a child a call started
// with die_with_parent (SIGKILL when its spawning thread ends) is never killed by the thread's end.
class CallThread {
 public:
  explicit CallThread(ResponseWriter& writer) : writer_(writer), thread_([this] { loop(); }) {}
  ~CallThread() { finish(false); }

  /// Queues a call; false when the client is already gone (a failed write).
  bool queue(std::function<json()> call) {
    if (writer_.failed()) return false;
    {
      std::lock_guard<std::mutex> hold(mutex_);
      calls_.push_back(std::move(call));
    }
    wake_.notify_one();
    return true;
  }

  /// Stops the thread: after answering every queued call (`answer_queued`), else after the running one
  /// only. True when every response could be written.
  bool finish(bool answer_queued) {
    {
      std::lock_guard<std::mutex> hold(mutex_);
      if (!answer_queued) calls_.clear();
      closing_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
    return !writer_.failed();
  }

 private:
  void loop() {
    for (;;) {
      std::function<json()> call;
      {
        std::unique_lock<std::mutex> hold(mutex_);
        wake_.wait(hold, [this] { return closing_ || !calls_.empty(); });
        if (calls_.empty()) return;
        call = std::move(calls_.front());
        calls_.pop_front();
      }
      if (!writer_.write(call())) {
        std::lock_guard<std::mutex> hold(mutex_);
        calls_.clear();  // the client is gone: nothing more is answered
      }
    }
  }

  ResponseWriter& writer_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<json()>> calls_;
  bool closing_ = false;
  std::thread thread_;
};

}  // namespace

const std::vector<std::string>& supported_protocols() {
  static const std::vector<std::string> v = {"2025-06-18", "2025-03-26", "2024-11-05"};
  return v;
}

json error_response(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

Server::Server(ServerInfo info, std::vector<Tool> tools, std::function<void(const std::string&)> log)
    : info_(std::move(info)),
      tools_(std::move(tools)),
      // One line at a time: the reading loop and serve()'s call thread both log.
      log_([mutex = std::make_shared<std::mutex>(), log = std::move(log)](const std::string& line) {
        std::lock_guard<std::mutex> hold(*mutex);
        log(line);
      }) {}

std::optional<json> Server::handle_line(std::string_view line) {
  Dispatch d = dispatch_line(line);
  if (d.later) return d.later();
  return std::move(d.now);
}

Dispatch Server::dispatch_line(std::string_view line) {
  if (is_blank(line)) return {};
  std::string why;
  json msg = safe_json::parse(line, safe_json::kMaxDepth, &why);  // bounded nesting: nothing deep is ever copied or dumped
  if (msg.is_discarded()) {
    log_("malformed JSON (" + std::to_string(line.size()) + " bytes, " + why + "): -32700");
    if (why != "not JSON")
      return Dispatch{error_response(nullptr, kParseError, "parse error: " + why + " (one JSON-RPC message per line)"), {}};
    return Dispatch{error_response(nullptr, kParseError, "parse error: the line is not JSON (one JSON-RPC message per line)"), {}};
  }
  if (msg.is_array()) {
    log_("batch: refused");
    return Dispatch{error_response(nullptr, kInvalidRequest, "batches are not supported: send one JSON-RPC message per line"), {}};
  }
  if (!msg.is_object()) return Dispatch{error_response(nullptr, kInvalidRequest, "a message must be a JSON-RPC 2.0 object"), {}};
  const bool has_id = msg.contains("id");
  const json id = has_id ? msg["id"] : json(nullptr);
  const bool id_ok = id.is_string() || id.is_number();
  if (!msg.contains("method")) {
    // A response (the server sends no requests, so none is awaited) or garbage.
    if (has_id && (msg.contains("result") || msg.contains("error"))) return {};
    return Dispatch{error_response(id_ok ? id : json(nullptr), kInvalidRequest, "a request needs a method"), {}};
  }
  if (msg.value("jsonrpc", json()) != "2.0")
    return has_id ? Dispatch{error_response(id_ok ? id : json(nullptr), kInvalidRequest, "jsonrpc must be \"2.0\""), {}}
                  : Dispatch{};
  if (!msg["method"].is_string())
    return has_id ? Dispatch{error_response(id_ok ? id : json(nullptr), kInvalidRequest, "method must be a string"), {}}
                  : Dispatch{};
  const std::string method = msg["method"];
  if (!has_id) {
    notification(method);
    return {};
  }
  if (!id_ok) return Dispatch{error_response(nullptr, kInvalidRequest, "id must be a string or a number"), {}};
  const json params = msg.contains("params") ? msg["params"] : json::object();
  if (!params.is_object()) return Dispatch{error_response(id, kInvalidParams, "params must be an object"), {}};
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed_ms = [t0] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  Dispatch d;
  try {
    d = handle_request(method, id, params);
  } catch (const std::exception& e) {
    d = {error_response(id, kInternalError, std::string("internal error: ") + e.what()), {}};
  }
  if (!d.later) {
    log_answer(method, id, *d.now, elapsed_ms());
    return d;
  }
  // The call itself, run later (perhaps on serve()'s call thread): a throw is -32603, the time logged is from the read.
  d.later = [this, method, id, elapsed_ms, call = std::move(d.later)] {
    json response;
    try {
      response = call();
    } catch (const std::exception& e) {
      response = error_response(id, kInternalError, std::string("internal error: ") + e.what());
    }
    log_answer(method, id, response, elapsed_ms());
    return response;
  };
  return d;
}

void Server::log_answer(const std::string& method, const json& id, const json& response, double ms) {
  std::string outcome = response.contains("error") ? "error " + std::to_string(response["error"].value("code", 0)) : "ok";
  if (response.contains("result") && response["result"].value("isError", false)) outcome = "ok (isError)";
  log_(method + " id " + id_text(id) + ": " + outcome + ", " + std::to_string(static_cast<long long>(ms)) + " ms");
}

Dispatch Server::handle_request(const std::string& method, const json& id, const json& params) {
  if (method == "ping") return {result_response(id, json::object()), {}};
  if (method == "initialize") return {initialize(id, params), {}};
  if (!initialized_) return {error_response(id, kNotInitialized, "not initialized: send initialize first"), {}};
  if (method == "tools/list") return {tools_list(id), {}};
  if (method == "tools/call") return tools_call(id, params);
  return {error_response(id, kMethodNotFound, "method not found: " + method + " (this server has tools only)"), {}};
}

json Server::initialize(const json& id, const json& params) {
  if (initialized_) return error_response(id, kInvalidRequest, "already initialized");
  if (!params.contains("protocolVersion") || !params["protocolVersion"].is_string())
    return error_response(id, kInvalidParams, "initialize: params.protocolVersion (a string) is required");
  const std::string asked = params["protocolVersion"];
  protocol_ = supported_protocols().front();
  for (const auto& v : supported_protocols())
    if (v == asked) protocol_ = v;
  initialized_ = true;
  std::string client = "unknown client";
  if (params.contains("clientInfo") && params["clientInfo"].is_object())
    client = params["clientInfo"].value("name", client) + " " + params["clientInfo"].value("version", "");
  log_("initialize: " + client + " asked for " + asked + ", speaking " + protocol_);
  json result = {{"protocolVersion", protocol_},
                 {"capabilities", {{"tools", {{"listChanged", false}}}}},
                 {"serverInfo", {{"name", info_.name}, {"version", info_.version}}}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return result_response(id, std::move(result));
}

json Server::tools_list(const json& id) const {
  json tools = json::array();
  for (const auto& t : tools_) {
    json j = {{"name", t.name}, {"description", t.description}, {"inputSchema", t.input_schema}};
    if (!t.title.empty()) j["title"] = t.title;
    if (!t.output_schema.is_null()) j["outputSchema"] = t.output_schema;
    tools.push_back(std::move(j));
  }
  return result_response(id, {{"tools", std::move(tools)}});
}

Dispatch Server::tools_call(const json& id, const json& params) {
  if (!params.contains("name") || !params["name"].is_string())
    return {error_response(id, kInvalidParams, "tools/call: params.name (a string) is required"), {}};
  const std::string name = params["name"];
  const Tool* tool = nullptr;
  std::string names;
  for (const auto& t : tools_) {
    if (t.name == name) tool = &t;
    names += (names.empty() ? "" : ", ") + t.name;
  }
  if (!tool) return {error_response(id, kInvalidParams, "unknown tool '" + name + "' (tools: " + names + ")"), {}};
  const json arguments = params.contains("arguments") ? params["arguments"] : json::object();
  const std::string bad = check_arguments(tool->input_schema, arguments);
  if (!bad.empty()) return {error_response(id, kInvalidParams, name + ": " + bad), {}};
  // tools_ never changes after construction, so `tool` stays valid while the call runs elsewhere.
  return {std::nullopt, [tool, id, arguments] {
            const ToolResult r = tool->call(arguments);
            json result = {{"content", json::array({{{"type", "text"}, {"text", safe_json::text(r.structured)}}})},
                           {"isError", r.is_error}};
            // structuredContent (2025-06-18) is sent whatever the revision: an older client ignores a key it does not know.
            result["structuredContent"] = r.structured;
            return result_response(id, std::move(result));
          }};
}

void Server::notification(const std::string& method) {
  // notifications/initialized, notifications/cancelled (a call runs to its end: one worker, bounded by its
  // timeout), anything else: no response, ever.
  log_("notification " + method);
}

int serve(int in_fd, int out_fd, Server& server, size_t max_line_bytes) {
  ResponseWriter writer(out_fd);
  CallThread calls(writer);
  std::string buffer;
  bool skipping = false;  // inside a line that was already refused as too long
  char chunk[65536];
  auto too_long = [&] {
    return writer.write(error_response(nullptr, kInvalidRequest,
                                       "message longer than " + std::to_string(max_line_bytes) + " bytes: refused"));
  };
  auto answer = [&](std::string_view line) {
    if (line.size() > max_line_bytes) return too_long();
    Dispatch d = server.dispatch_line(line);
    if (d.later) return calls.queue(std::move(d.later));
    return !d.now || writer.write(*d.now);
  };
  // The end of the loop: calls still queued are answered (at the end of input) or dropped (the client is gone).
  auto finish = [&](bool ok) { return calls.finish(ok) && ok ? 0 : 1; };
  for (;;) {
    const ssize_t n = ::read(in_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return finish(false);
    if (n == 0) break;
    buffer.append(chunk, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (skipping) {
        skipping = false;
        continue;
      }
      if (!answer(std::string_view(buffer).substr(start, nl - start))) return finish(false);
    }
    buffer.erase(0, start);
    if (!skipping && buffer.size() > max_line_bytes) {  // refused before its end arrives; the rest is skipped
      if (!too_long()) return finish(false);
      skipping = true;
    }
    if (skipping) buffer.clear();
  }
  if (!skipping && !buffer.empty() && !answer(buffer)) return finish(false);  // a last line without its newline
  return finish(true);
}

}  // namespace tvis::cli::mcp
