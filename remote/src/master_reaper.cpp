// master_reaper.cpp: the fatal-signal handler that ends registered ssh
// masters (master_reaper.h).
#include "tvis/remote/master_reaper.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace tvis::remote {

namespace {

constexpr size_t kDirMax = 512;
constexpr int kSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE};
constexpr int kSignalCount = int(sizeof kSignals / sizeof kSignals[0]);

struct Slot {
  std::atomic<pid_t> pid{0};  // 0: free; written last when registering, first when forgetting
  char dir[kDirMax] = {};
};

Slot g_slots[kMaxReapedMasters];
struct sigaction g_previous[kSignalCount];
std::mutex g_install_mu;
bool g_installed = false;

void unlink_in(const char* dir, const char* name) {
  char path[kDirMax + 32];
  const size_t n = std::strlen(dir);
  std::memcpy(path, dir, n);
  path[n] = '/';
  std::strcpy(path + n + 1, name);
  ::unlink(path);
}

void on_fatal(int sig) {
  const int saved = errno;
  for (auto& slot : g_slots) {
    const pid_t pid = slot.pid.exchange(0);
    if (pid <= 0) continue;
    ::kill(pid, SIGTERM);  // the master removes its control socket as it exits
    for (const char* name : {"master", "master.log", "check.log", "pid.log"}) unlink_in(slot.dir, name);
    ::rmdir(slot.dir);
  }
  // The signal's own effect, as before this handler was installed.
  for (int i = 0; i < kSignalCount; ++i)
    if (kSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  errno = saved;
  ::raise(sig);
}

void install_once() {
  std::lock_guard<std::mutex> lock(g_install_mu);
  if (g_installed) return;
  g_installed = true;
  for (int i = 0; i < kSignalCount; ++i) {
    struct sigaction sa {};
    sa.sa_handler = on_fatal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NODEFER;  // raise() inside it reaches the restored action at once
    ::sigaction(kSignals[i], &sa, &g_previous[i]);
  }
}

}  // namespace

bool end_master_on_crash(pid_t pid, const std::string& dir) {
  if (pid <= 0 || dir.size() + 1 >= kDirMax) return false;
  install_once();
  std::lock_guard<std::mutex> lock(g_install_mu);  // one registration at a time: a slot's dir is written before its pid
  for (auto& slot : g_slots) {
    if (slot.pid.load() != 0) continue;
    std::memcpy(slot.dir, dir.c_str(), dir.size() + 1);
    slot.pid.store(pid);
    return true;
  }
  return false;
}

void forget_master_on_crash(pid_t pid) {
  if (pid <= 0) return;
  for (auto& slot : g_slots) {
    pid_t expected = pid;
    slot.pid.compare_exchange_strong(expected, 0);
  }
}

}  // namespace tvis::remote
