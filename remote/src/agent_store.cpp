#include "tvis/remote/agent_store.h"

namespace tvis::remote {

AgentStore::AgentStore(Launch launch, std::string where, std::string start_hint, AgentLimits limits)
    : launch_(std::move(launch)), where_(std::move(where)), start_hint_(std::move(start_hint)), limits_(limits) {}

Outcome<std::shared_ptr<AgentClient>> AgentStore::client() {
  using R = Outcome<std::shared_ptr<AgentClient>>;
  std::lock_guard<std::mutex> lock(mu_);
  if (client_ && client_->alive()) return R::good(client_);
  if (client_) {
    done_.sent += client_->bytes_sent();
    done_.received += client_->bytes_received();
    lost_ = "connection to " + where_ + " lost (" + client_->dead_reason() + "); reconnecting: ";
    client_.reset();
  }
  const std::string lost = lost_;  // kept until a reconnect succeeds
  auto argv = launch_();
  if (!argv.ok) return R::bad(lost + argv.error, ErrorKind::Unreachable);
  auto c = AgentClient::start(argv.value, limits_);
  ++done_.connections;
  if (!c.ok) return R::bad(lost + "the tvis agent could not be started for " + where_ + ": " + c.error + start_hint_, ErrorKind::Unreachable);
  client_ = c.value;
  lost_.clear();
  return R::good(client_);
}

Outcome<bool> AgentStore::connect() {
  auto c = client();
  return c.ok ? Outcome<bool>::good(true) : Outcome<bool>::fail_as(c);
}

Outcome<std::string> AgentStore::call(MessageType type, const std::string& payload) {
  auto c = client();
  if (!c.ok) return Outcome<std::string>::fail_as(c);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++requests_;
  }
  auto r = c.value->call(type, payload);
  // A reply that never came is this request's failure: no second wait (the
  // next request starts a new agent).
  if (r.ok || c.value->alive() || r.kind == ErrorKind::TimedOut) return r;
  // The connection died under this call: one reconnect, then the call again.
  auto again = client();
  if (!again.ok) return Outcome<std::string>::fail_as(again);
  r = again.value->call(type, payload);
  if (!r.ok && !again.value->alive() && r.kind != ErrorKind::TimedOut)
    return Outcome<std::string>::bad("connection to " + where_ + " lost: " + r.error, ErrorKind::Unreachable);
  return r;
}

std::string list_answer_problem(const std::string& text) {
  if (text.size() > kMaxListBytes)
    return "the agent's run list is " + std::to_string(text.size()) + " bytes (at most " + std::to_string(kMaxListBytes) + ")";
  auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  size_t at = 0;
  while (at < text.size() && space(text[at])) ++at;
  if (at == text.size() || text[at] != '[') return "the agent's run list is not a JSON array";
  size_t depth = 0, entries = 0, values = 0;
  bool expect_value = true;  // after '[', '{', ',' or ':': the next token starts a value (or a key)
  auto value_starts = [&]() -> std::string {
    ++values;
    if (depth == 1) ++entries;
    if (entries > kMaxListEntries) return "the agent's run list holds more than " + std::to_string(kMaxListEntries) + " runs";
    if (values > kMaxListValues) return "the agent's run list holds more than " + std::to_string(kMaxListValues) + " JSON values";
    return "";
  };
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (space(c)) continue;
    std::string problem;
    if (c == '"') {  // a string (or a key), escapes skipped
      for (++at; at < text.size() && text[at] != '"'; ++at)
        if (text[at] == '\\') ++at;
      if (expect_value) problem = value_starts();
      expect_value = false;
    } else if (c == '[' || c == '{') {
      problem = value_starts();
      if (++depth > kMaxListDepth) return "the agent's run list nests deeper than " + std::to_string(kMaxListDepth) + " levels";
      expect_value = true;
    } else if (c == ']' || c == '}') {
      if (depth <= 1) break;  // the end of the list (what follows is the parser's to refuse)
      --depth;
      expect_value = false;
    } else if (c == ',' || c == ':') {
      expect_value = true;
    } else {  // a number, true, false or null
      if (expect_value) problem = value_starts();
      expect_value = false;
    }
    if (!problem.empty()) return problem;
  }
  return "";
}

Outcome<std::string> AgentStore::list() {
  auto r = call(MessageType::List, "");
  if (!r.ok) return r;
  const std::string problem = list_answer_problem(r.value);
  if (!problem.empty())
    return Outcome<std::string>::bad(problem, problem.find("not a JSON array") != std::string::npos ? ErrorKind::Malformed : ErrorKind::TooLarge);
  return r;
}

Outcome<FileStat> AgentStore::stat(const std::string& path) {
  auto r = call(MessageType::Stat, path);
  if (!r.ok) return Outcome<FileStat>::fail_as(r);
  FileStat st;
  if (!parse_stat_reply(r.value, &st)) return Outcome<FileStat>::bad("malformed Stat reply from the agent", ErrorKind::Malformed);
  return Outcome<FileStat>::good(st);
}

Outcome<ReadResult> AgentStore::read(const std::string& path, uint64_t offset, uint32_t length) {
  auto r = call(MessageType::Read, encode_read_request(offset, length, path));
  if (!r.ok) return Outcome<ReadResult>::fail_as(r);
  ReadResult out;
  if (!parse_read_reply(r.value, length, &out))
    return Outcome<ReadResult>::bad("malformed Read reply (" + std::to_string(r.value.size()) + " bytes for " + std::to_string(length) + ")",
                                    ErrorKind::Malformed);
  if (out.file_size < offset || out.file_size - offset < length)  // bytes past the size it reports: it is lying
    return Outcome<ReadResult>::bad("malformed Read reply (bytes past the file size it reports)", ErrorKind::Malformed);
  return Outcome<ReadResult>::good(std::move(out));
}

AgentStore::Traffic AgentStore::traffic() const {
  std::lock_guard<std::mutex> lock(mu_);
  Traffic t = done_;
  t.requests = requests_;
  if (client_) {
    t.sent += client_->bytes_sent();
    t.received += client_->bytes_received();
  }
  return t;
}

int AgentStore::agent_pid() const {
  std::lock_guard<std::mutex> lock(mu_);
  return client_ && client_->alive() ? int(client_->pid()) : -1;
}

}  // namespace tvis::remote
