#include "process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tvis::cli {

namespace {

volatile sig_atomic_t g_child = 0;  // the child wait_forwarding_signals() waits for

void forward_signal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

}  // namespace

bool is_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_executable(const std::string& p) { return is_file(p) && access(p.c_str(), X_OK) == 0; }

bool is_elf(const std::string& p) {
  const int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[4] = {};
  const bool elf = read(fd, magic, 4) == 4 && std::memcmp(magic, "\x7f" "ELF", 4) == 0;
  close(fd);
  return elf;
}

void exec_argv(const std::vector<std::string>& argv) {
  std::vector<char*> a;
  for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  execv(a[0], a.data());
}

int wait_status(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

int run_quiet(const std::vector<std::string>& argv) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, 1);
      dup2(devnull, 2);
    }
    exec_argv(argv);
    _exit(127);
  }
  const int status = wait_status(pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int wait_forwarding_signals(pid_t child) {
  g_child = child;
  signal(SIGINT, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  const int status = wait_status(child);
  g_child = 0;
  return status;
}

int exit_like(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
    return 128 + sig;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace tvis::cli
