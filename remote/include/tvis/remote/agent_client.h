// agent_client.h: the near end of the protocol (protocol.h). Starts a command
// whose stdin/stdout speak to an agent (`ssh HOST 'tvis agent --stdio P'`, or
// `tvis agent --stdio P` itself in tests), says Hello, then carries requests
// from any number of threads at once: each gets its own id, all are written
// as they come (pipelined) and one reader thread hands each reply to its
// caller. When the stream ends, every waiting and later call fails with the
// same message (the connection is dead; make a new client to reconnect).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tvis/remote/protocol.h"
#include "tvis/remote/run_store.h"

namespace tvis::remote {

/// Every wait of the client has a deadline.
struct AgentLimits {
  std::chrono::milliseconds hello{60000};  // ssh may still be connecting (and asking for a password)
  std::chrono::milliseconds call{60000};   // one request's reply (a 16 MiB Read over a slow link)
};

class AgentClient {
 public:
  /// Starts `argv` and completes Hello. Fails with one line: the command's
  /// exit status and the last lines of its stderr when it ended first, the
  /// two versions when the agent speaks another protocol, what arrived when
  /// it is not an agent at all, or that it did not answer within limits.hello.
  static Outcome<std::shared_ptr<AgentClient>> start(const std::vector<std::string>& argv, AgentLimits limits = {});
  ~AgentClient();  // closes the agent's stdin (it exits), ends it if it lingers, and reaps it

  /// One request; blocks until its reply or limits.call. Ok's payload, or the
  /// Error's message and kind, or why the connection is gone (Unreachable).
  /// A reply not in time fails this call (TimedOut) and ends the connection:
  /// the agent answers in order, so every later reply would wait behind it;
  /// the store's next call starts a new agent.
  Outcome<std::string> call(MessageType type, const std::string& payload);

  bool alive() const { return !dead_.load(); }
  /// Why the connection ended ("" while alive).
  std::string dead_reason() {
    std::lock_guard<std::mutex> lock(mu_);
    return dead_reason_;
  }
  /// Protocol bytes written to / read from the agent so far (frames whole).
  uint64_t bytes_sent() const { return bytes_sent_.load(); }
  uint64_t bytes_received() const { return bytes_received_.load(); }
  pid_t pid() const { return pid_; }

 private:
  AgentClient() = default;
  struct Pending {
    bool done = false;
    Frame reply;
    std::string parts;  // Part frames received so far
    bool too_large = false;
  };
  void read_loop();
  void fail_all(const std::string& why);
  /// Ends the agent's process group: SIGTERM, then SIGKILL if it is still there.
  void end_agent();
  /// The agent's stderr, read by a detached thread that owns it: a
  /// grandchild that keeps the pipe open must not keep this client alive.
  struct StderrTail {
    std::mutex mu;
    std::condition_variable cv;
    std::string text;
    bool done = false;
  };

  AgentLimits limits_;
  pid_t pid_ = -1;
  int to_agent_ = -1, from_agent_ = -1;
  std::thread reader_;
  std::shared_ptr<StderrTail> stderr_ = std::make_shared<StderrTail>();
  std::mutex write_mu_;
  std::mutex mu_;  // guards the fields below
  std::condition_variable cv_;
  std::map<uint32_t, Pending> pending_;
  uint32_t next_id_ = 1;
  std::string dead_reason_;
  int exit_status_ = -1;  // raw wait status once reaped
  std::atomic<bool> dead_{false};
  std::atomic<uint64_t> bytes_sent_{0}, bytes_received_{0};
};

}  // namespace tvis::remote
