#include "tvis/remote/ssh_session.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tvis/process/run.h"

namespace tvis::remote {

namespace {

/// Runs argv with stdin from /dev/null and stdout and stderr appended to `log`
/// (tvis's blocked stop signals not inherited: spawn.h); its raw wait status,
/// or -1 with `why` when it could not start.
int run_logged(const std::vector<std::string>& argv, const std::string& log, std::string* why = nullptr) {
  process::SpawnOptions o;
  o.argv = argv;
  o.in = process::Stdio::Null;
  o.output_file = log;
  const process::Result r = process::run(o);
  if (!r.started && why) *why = r.error;
  return r.started ? r.status : -1;
}

std::string tail_of_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::string out;
  std::istringstream lines(text);
  std::vector<std::string> all;
  for (std::string l; std::getline(lines, l);)
    if (!l.empty() && l.find("Warning: Permanently added") == std::string::npos) all.push_back(l);
  for (size_t i = all.size() > 3 ? all.size() - 3 : 0; i < all.size(); ++i) out += (out.empty() ? "" : " | ") + all[i];
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string remote_shell_word(const std::string& word) {
  if (word == "~") return "~";
  if (word.rfind("~/", 0) == 0) return word.size() == 2 ? "~/" : "~/" + shell_quote(word.substr(2));
  return shell_quote(word);
}

std::string remote_agent_command(const SshTarget& target) {
  return remote_shell_word(target.remote_tvis) + " agent --stdio " + remote_shell_word(target.path);
}

std::vector<std::string> SshSession::base_argv() const {
  std::vector<std::string> argv{target_.ssh};
  if (!target_.ssh_config.empty()) argv.insert(argv.end(), {"-F", target_.ssh_config});
  if (!target_.via.empty()) {
    std::string jumps;
    for (const auto& v : target_.via) jumps += (jumps.empty() ? "" : ",") + v;
    argv.insert(argv.end(), {"-J", jumps});
  }
  argv.insert(argv.end(), {"-o", "ControlPath=" + dir_ + "/master"});
  return argv;
}

Outcome<bool> SshSession::connect() {
  if (dir_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/tvis-ssh.XXXXXX";
    if (!::mkdtemp(templ.data())) return Outcome<bool>::bad(std::string("cannot create a private folder for ssh: ") + std::strerror(errno));
    dir_ = templ;  // mkdtemp makes it 0700
  }
  std::vector<std::string> argv = base_argv();
  // -f: go to the background once authenticated; -N: no command; the master
  // lives until close() (ControlPersist=yes) and every agent session reuses it.
  argv.insert(argv.end(), {"-o", "ControlMaster=yes", "-o", "ControlPersist=yes", "-f", "-N", target_.host});
  const std::string log = dir_ + "/master.log";
  std::string not_started;
  const int status = run_logged(argv, log, &not_started);
  if (status == 0) return Outcome<bool>::good(true);
  const std::string why = status < 0 ? not_started : tail_of_file(log);
  return Outcome<bool>::bad("ssh to " + target_.host + " failed" + (why.empty() ? "" : ": " + why));
}

std::vector<std::string> SshSession::agent_argv() const {
  std::vector<std::string> argv = base_argv();
  argv.insert(argv.end(), {"-o", "ControlMaster=no", "-T", target_.host, remote_agent_command(target_)});
  return argv;
}

bool SshSession::master_alive() const {
  if (dir_.empty()) return false;
  std::vector<std::string> argv = base_argv();
  argv.insert(argv.end(), {"-O", "check", target_.host});
  return run_logged(argv, dir_ + "/check.log") == 0;
}

void SshSession::close() {
  if (dir_.empty()) return;
  std::vector<std::string> argv = base_argv();
  argv.insert(argv.end(), {"-O", "exit", target_.host});
  run_logged(argv, "/dev/null");
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  dir_.clear();
}

}  // namespace tvis::remote
