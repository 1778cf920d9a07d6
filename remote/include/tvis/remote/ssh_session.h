// ssh_session.h: how tvis reaches a remote agent. The user's own ssh does
// every authentication; tvis adds only connection sharing:
//   - one master connection (ControlMaster=yes, ControlPersist=yes) whose
//     socket lives in a private folder (mode 0700) made for this tvis
//     process, so 2FA is asked once per `tvis open` however many agent
//     sessions (reconnects) ride on it;
//   - every agent session is `ssh [opts] HOST '<remote-tvis> agent --stdio <PATH>'`
//     with ControlMaster=no over that socket;
//   - `--ssh-config FILE` becomes `-F FILE` on every ssh, `--via a,b` becomes `-J a,b`.
// close() (and the destructor) ends the master (`ssh -O exit`) and removes the folder.
#pragma once

#include <string>
#include <vector>

#include "tvis/remote/run_store.h"

namespace tvis::remote {

struct SshTarget {
  std::string host;              // an ssh destination or ~/.ssh/config alias
  std::string path;              // on the remote; a leading "~/" is the remote's home
  std::vector<std::string> via;  // jump hosts, in order
  std::string remote_tvis = "tvis";
  std::string ssh_config;        // -F FILE when not empty
  std::string ssh = "ssh";       // the ssh program
};

/// `word` quoted for a POSIX shell, except that a leading "~/" stays
/// unquoted so the remote shell expands it ("~/a b" -> ~/'a b').
std::string remote_shell_word(const std::string& word);

/// The command line run on the remote: '<remote-tvis> agent --stdio <PATH>', quoted.
std::string remote_agent_command(const SshTarget& target);

class SshSession {
 public:
  explicit SshSession(SshTarget target) : target_(std::move(target)) {}
  ~SshSession() { close(); }
  SshSession(const SshSession&) = delete;
  SshSession& operator=(const SshSession&) = delete;

  /// Opens the master connection (authentication happens here, on the
  /// user's terminal). Fails with ssh's own last lines of stderr.
  Outcome<bool> connect();
  /// The argv of one agent session over the master.
  std::vector<std::string> agent_argv() const;
  /// True while the master answers `ssh -O check`.
  bool master_alive() const;
  void close();
  const SshTarget& target() const { return target_; }
  /// "host:path" for messages.
  std::string describe() const { return target_.host + ":" + target_.path; }

 private:
  /// ssh plus the options every call shares (-F, -J, ControlPath).
  std::vector<std::string> base_argv() const;
  SshTarget target_;
  std::string dir_;  // the private folder; "" before connect()
};

}  // namespace tvis::remote
