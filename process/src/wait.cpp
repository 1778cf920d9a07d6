#include "tvis/process/wait.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

namespace tvis::process {

namespace {

volatile sig_atomic_t g_child = 0;  // the child wait_forwarding_signals() waits for

void forward_signal(int sig) {
  if (g_child > 0) ::kill(g_child, sig);
}

}  // namespace

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

Waited wait_within(pid_t pid, int64_t ms, int* status) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms < 0 ? 0 : ms);
  for (;;) {
    const pid_t w = ::waitpid(pid, status, WNOHANG);
    if (w == pid) return Waited::Ended;
    if (w < 0 && errno == ECHILD) return Waited::NotOurs;
    if (w < 0 && errno == EINTR) continue;
    if (std::chrono::steady_clock::now() >= until) return Waited::Running;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void signal_child(pid_t pid, bool group, int sig) {
  if (pid <= 0) return;
  if (group) ::kill(-pid, sig);
  ::kill(pid, sig);
}

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

int wait_forwarding_signals(pid_t child) {
  g_child = child;
  ::signal(SIGINT, SIG_IGN);
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
    ::signal(sig, SIG_DFL);
    ::kill(::getpid(), sig);
    return 128 + sig;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace tvis::process
