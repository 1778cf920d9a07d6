#include "tvis/remote/agent_store.h"

namespace tvis::remote {

AgentStore::AgentStore(Launch launch, std::string where, std::string start_hint)
    : launch_(std::move(launch)), where_(std::move(where)), start_hint_(std::move(start_hint)) {}

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
  if (!argv.ok) return R::bad(lost + argv.error);
  auto c = AgentClient::start(argv.value);
  ++done_.connections;
  if (!c.ok) return R::bad(lost + "the tvis agent could not be started for " + where_ + ": " + c.error + start_hint_);
  client_ = c.value;
  lost_.clear();
  return R::good(client_);
}

Outcome<bool> AgentStore::connect() {
  auto c = client();
  return c.ok ? Outcome<bool>::good(true) : Outcome<bool>::bad(c.error);
}

Outcome<std::string> AgentStore::call(MessageType type, const std::string& payload) {
  auto c = client();
  if (!c.ok) return Outcome<std::string>::bad(c.error);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++requests_;
  }
  auto r = c.value->call(type, payload);
  if (r.ok || c.value->alive()) return r;
  // The connection died under this call: one reconnect, then the call again.
  auto again = client();
  if (!again.ok) return Outcome<std::string>::bad(again.error);
  r = again.value->call(type, payload);
  if (!r.ok && !again.value->alive()) return Outcome<std::string>::bad("connection to " + where_ + " lost: " + r.error);
  return r;
}

Outcome<std::string> AgentStore::list() { return call(MessageType::List, ""); }

Outcome<FileStat> AgentStore::stat(const std::string& path) {
  auto r = call(MessageType::Stat, path);
  if (!r.ok) return Outcome<FileStat>::bad(r.error);
  FileStat st;
  size_t at = 0;
  uint64_t mtime = 0;
  if (!get_u64(r.value, &at, &st.size) || !get_u64(r.value, &at, &mtime)) return Outcome<FileStat>::bad("malformed Stat reply");
  st.mtime_ms = int64_t(mtime);
  return Outcome<FileStat>::good(st);
}

Outcome<ReadResult> AgentStore::read(const std::string& path, uint64_t offset, uint32_t length) {
  std::string req;
  put_u64(req, offset);
  put_u32(req, length);
  req += path;
  auto r = call(MessageType::Read, req);
  if (!r.ok) return Outcome<ReadResult>::bad(r.error);
  ReadResult out;
  size_t at = 0;
  if (!get_u64(r.value, &at, &out.file_size) || r.value.size() - at != length)
    return Outcome<ReadResult>::bad("malformed Read reply (" + std::to_string(r.value.size()) + " bytes for " + std::to_string(length) + ")");
  out.bytes = r.value.substr(at);
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
