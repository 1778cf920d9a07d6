// agent.h: the far end of the protocol (protocol.h), `tvis agent --stdio PATH`.
// It answers requests about the runs under PATH (run_store.h's local store:
// nothing outside PATH is read) from `in_fd`, replies on `out_fd`, one
// request at a time in arrival order, and returns when `in_fd` closes.
#pragma once

#include <cstdint>
#include <string>

namespace tvis::remote {

struct AgentOptions {
  /// The version announced in Hello; kProtocolVersion except in tests that
  /// play an agent of another version (TVIS_AGENT_PROTOCOL_VERSION).
  uint32_t version;
};

/// Serves until `in_fd` ends. Returns 0 after a clean end of input, 2 when
/// PATH does not exist or the client's Hello is wrong (the reason also goes
/// to the client as an Error frame and to stderr), 1 on a broken stream.
int serve_agent(const std::string& path, int in_fd, int out_fd, const AgentOptions& options);

}  // namespace tvis::remote
