#include "tvis/remote/ssh_session.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tvis::remote {

namespace {

/// Runs argv with stdin from /dev/null and stderr (and stdout) into `log`;
/// its raw wait status, or -1 when it could not start.
int run_logged(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    if (log_fd >= 0) {
      ::dup2(log_fd, 1);
      ::dup2(log_fd, 2);
    }
    sigset_t none;  // tvis blocks SIGINT/SIGTERM to wait for them; ssh must not inherit that
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
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
  const int status = run_logged(argv, log);
  if (status == 0) return Outcome<bool>::good(true);
  std::string why = tail_of_file(log);
  if (status < 0) why = "cannot run " + target_.ssh;
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
