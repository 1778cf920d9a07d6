#include "tvis/remote/ssh_session.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tvis/process/run.h"
#include "tvis/remote/master_reaper.h"

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

// Quoted the same by a POSIX sh, csh/tcsh and fish: plain characters inside
// single quotes (literal in all three), and outside them, backslashed, the
// three that are not: ' and \ (fish reads \' and \\ inside single quotes as
// escapes) and ! (csh expands history inside single quotes, even under -c).
std::string portable_quote(const std::string& s) {
  std::string out;
  bool open = false;
  for (char c : s) {
    if (c == '\'' || c == '\\' || c == '!') {
      if (open) out += '\'';
      open = false;
      out += '\\';
      out += c;
      continue;
    }
    if (!open) out += '\'';
    open = true;
    out += c;
  }
  if (open) out += '\'';
  return out.empty() ? "''" : out;
}

/// The master's pid from `ssh -O check` ("Master running (pid=N)"), or -1.
pid_t master_pid_from(const std::string& log) {
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const size_t at = text.find("(pid=");
  if (at == std::string::npos) return -1;
  long pid = std::strtol(text.c_str() + at + 5, nullptr, 10);
  return pid > 1 ? pid_t(pid) : -1;
}

}  // namespace

std::string remote_word_problem(const std::string& word) {
  for (char c : word)
    if (c == '\n' || c == '\r' || c == '\0') return "holds a line break or NUL, which no remote shell quotes alike";
  return "";
}

std::string ssh_host_problem(const std::string& host) {
  if (host.empty()) return "the host is empty";
  if (host[0] == '-') return "'" + host.substr(0, 80) + "' starts with '-': ssh would read it as an option, not a host";
  for (unsigned char c : host)
    if (c <= ' ' || c == 0x7f || c == ',')
      return "'" + host.substr(0, 80) + "' holds a space, a comma or a control character: not a host";
  return "";
}

std::string remote_shell_word(const std::string& word) {
  if (word == "~") return "~";
  if (word.rfind("~/", 0) == 0) return word.size() == 2 ? "~/" : "~/" + portable_quote(word.substr(2));
  return portable_quote(word);
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
  for (const std::string& host : [&] {
         std::vector<std::string> all{target_.host};
         all.insert(all.end(), target_.via.begin(), target_.via.end());
         return all;
       }()) {
    const std::string problem = ssh_host_problem(host);
    if (!problem.empty()) return Outcome<bool>::bad("not an ssh host: " + problem);
  }
  for (const std::string* word : {&target_.path, &target_.remote_tvis}) {
    const std::string problem = remote_word_problem(*word);
    if (!problem.empty()) return Outcome<bool>::bad("the remote " + std::string(word == &target_.path ? "path" : "tvis") + " " + problem);
  }
  if (dir_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/tvis-ssh.XXXXXX";
    if (!::mkdtemp(templ.data())) return Outcome<bool>::bad(std::string("cannot create a private folder for ssh: ") + std::strerror(errno));
    dir_ = templ;  // mkdtemp makes it 0700
  }
  std::vector<std::string> argv = base_argv();
  // -f: go to the background once authenticated; -N: no command; the master
  // lives until close() (ControlPersist=yes) and every agent session reuses it.
  // "--": the host is never read as an option (ssh_host_problem refuses one anyway).
  argv.insert(argv.end(), {"-o", "ControlMaster=yes", "-o", "ControlPersist=yes", "-f", "-N", "--", target_.host});
  const std::string log = dir_ + "/master.log";
  std::string not_started;
  const int status = run_logged(argv, log, &not_started);
  if (status == 0) {
    // The master outlives a tvis that dies of a fatal signal unless it is
    // ended then (master_reaper.h): its pid, from the master itself.
    std::vector<std::string> check = base_argv();
    check.insert(check.end(), {"-O", "check", "--", target_.host});
    const std::string pid_log = dir_ + "/pid.log";
    std::error_code ec;
    std::filesystem::remove(pid_log, ec);
    run_logged(check, pid_log);
    if (master_pid_ > 0) forget_master_on_crash(master_pid_);
    master_pid_ = master_pid_from(pid_log);
    if (master_pid_ > 0) end_master_on_crash(master_pid_, dir_);
    return Outcome<bool>::good(true);
  }
  const std::string why = status < 0 ? not_started : tail_of_file(log);
  return Outcome<bool>::bad("ssh to " + target_.host + " failed" + (why.empty() ? "" : ": " + why));
}

std::vector<std::string> SshSession::agent_argv() const {
  std::vector<std::string> argv = base_argv();
  argv.insert(argv.end(), {"-o", "ControlMaster=no", "-T", "--", target_.host, remote_agent_command(target_)});
  return argv;
}

bool SshSession::master_alive() const {
  if (dir_.empty()) return false;
  std::vector<std::string> argv = base_argv();
  argv.insert(argv.end(), {"-O", "check", "--", target_.host});
  return run_logged(argv, dir_ + "/check.log") == 0;
}

void SshSession::close() {
  if (dir_.empty()) return;
  std::vector<std::string> argv = base_argv();
  argv.insert(argv.end(), {"-O", "exit", "--", target_.host});
  run_logged(argv, "/dev/null");
  if (master_pid_ > 0) forget_master_on_crash(master_pid_);
  master_pid_ = -1;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  dir_.clear();
}

}  // namespace tvis::remote
