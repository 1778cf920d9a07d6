// agent_store.h: a RunStore whose runs an agent serves (agent_client.h),
// started by `launch` (an ssh session's agent_argv(), or a local
// `tvis agent --stdio` in tests). When the connection is lost, the call that
// finds it dead fails with "connection to <where> lost: ..." and the next
// call starts a new agent (a reconnect: through the same ssh master, so no
// new authentication). Counts the protocol bytes of every connection.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tvis/remote/agent_client.h"
#include "tvis/remote/run_store.h"

namespace tvis::remote {

/// The most an agent's List answer may hold. A hostile agent may send a
/// legal 256 MiB answer (kMaxReplyBytes); whoever parses it (the run list
/// page, tvis-view) would hold gigabytes. Checked on the text, before any
/// parse: bytes, runs (the top-level array's entries) and JSON values in all
/// (objects, arrays and scalars, nesting at most kMaxListDepth deep). A real
/// catalog entry is about 25 values and 400 bytes.
inline constexpr size_t kMaxListBytes = 16u << 20;
inline constexpr size_t kMaxListEntries = 20000;
inline constexpr size_t kMaxListValues = 1000000;
inline constexpr size_t kMaxListDepth = 16;

/// Why `text` is not a List answer within those bounds ("" when it is): not
/// a JSON array at the top, too many bytes, entries, values or levels.
/// Counts by a single scan of the text (strings and escapes skipped); the
/// JSON itself is checked by whoever parses it.
std::string list_answer_problem(const std::string& text);

class AgentStore : public RunStore {
 public:
  /// `launch` gives the argv of a fresh agent, or fails (e.g. the ssh master
  /// could not be re-opened); `where` names the runs in messages.
  using Launch = std::function<Outcome<std::vector<std::string>>()>;
  AgentStore(Launch launch, std::string where, std::string start_hint, AgentLimits limits = {});

  /// Starts the first agent; fails with the agent's own reason plus `start_hint`.
  Outcome<bool> connect();

  /// The agent's List answer, refused (TooLarge / Malformed) when
  /// list_answer_problem finds it over the bounds.
  Outcome<std::string> list() override;
  Outcome<FileStat> stat(const std::string& path) override;
  Outcome<ReadResult> read(const std::string& path, uint64_t offset, uint32_t length) override;
  std::string describe() const override { return where_; }

  struct Traffic {
    uint64_t sent = 0, received = 0, connections = 0, requests = 0;
  };
  Traffic traffic() const;
  /// The pid of the current agent process (the local ssh), -1 when none.
  int agent_pid() const;

 private:
  /// The live client, starting one if needed.
  Outcome<std::shared_ptr<AgentClient>> client();
  Outcome<std::string> call(MessageType type, const std::string& payload);

  Launch launch_;
  std::string where_, start_hint_;
  AgentLimits limits_;
  mutable std::mutex mu_;
  std::shared_ptr<AgentClient> client_;
  std::string lost_;  // why the last connection ended, until a new one is up
  Traffic done_;  // bytes of clients already replaced
  uint64_t requests_ = 0;
};

}  // namespace tvis::remote
