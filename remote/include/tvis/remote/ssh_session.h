// ssh_session.h: how tvis reaches a remote agent. The user's own ssh does
// every authentication; tvis adds only connection sharing:
//   - one master connection (ControlMaster=yes, ControlPersist=yes) whose
//     socket lives in a private folder (mode 0700) made for this tvis
//     process, so 2FA is asked once per `tvis open` however many agent
//     sessions (reconnects) ride on it;
//   - every agent session is `ssh [opts] HOST '<remote-tvis> agent --stdio <PATH>'`
//     with ControlMaster=no over that socket;
//   - `--ssh-config FILE` becomes `-F FILE` on every ssh, `--via a,b` becomes `-J a,b`;
//     the host always follows `--`, and a host or hop starting with '-' is
//     refused before any ssh runs (ssh_host_problem).
// close() (and the destructor) ends the master (`ssh -O exit`) and removes the
// folder; should tvis die of a fatal signal instead (an abort), the master is
// ended by master_reaper.h's handler. (SIGKILL cannot be caught: the master
// then stays until its socket's folder is removed or it is killed.)
#pragma once

#include <sys/types.h>

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

/// `word` quoted for the remote user's login shell, whichever it is: the
/// result reads back as `word` in a POSIX sh (bash, dash, zsh), csh/tcsh and
/// fish alike (plain characters in single quotes; ', \ and ! outside them as
/// \', \\ and \!). A leading "~/" stays unquoted so the remote shell expands it
/// ("~/a b" -> ~/'a b'). `word` must hold no line break (remote_word_problem).
std::string remote_shell_word(const std::string& word);

/// Why `word` cannot be passed to a remote shell ("" when it can): a line
/// break or NUL (csh cannot quote one).
std::string remote_word_problem(const std::string& word);

/// Why `host` is not an ssh destination tvis passes on ("" when it is): empty,
/// starting with '-' (an option to ssh), or holding a space, a comma or a
/// control character.
std::string ssh_host_problem(const std::string& host);

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
  pid_t master_pid_ = -1;  // the master, registered with master_reaper.h
};

}  // namespace tvis::remote
