// bench_agent: what reading runs through `tvis agent` over ssh adds per range
// read, against reading the same bytes locally.
//   bench_agent --ssh-config FILE --host HOST --remote-tvis T --path RUNS_DIR
//               [--reads N] [--length BYTES] [--via HOST]
// Both sides read the same run file (the newest run of RUNS_DIR, which must
// be readable locally too: loopback ssh), the same N ranges at spread
// offsets, one at a time (latency, not throughput), through the same
// RunStore interface `tvis open` serves from. Prints medians and p90 in ms.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tvis/remote/agent_store.h"
#include "tvis/remote/run_store.h"
#include "tvis/remote/ssh_session.h"

using namespace tvis::remote;
using Clock = std::chrono::steady_clock;

namespace {

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

std::vector<double> time_reads(RunStore& store, const std::string& path, uint64_t size, int reads, uint32_t length) {
  std::vector<double> ms;
  for (int i = 0; i < reads; ++i) {
    const uint64_t offset = (size - length) / uint64_t(reads) * uint64_t(i);
    const auto t0 = Clock::now();
    auto r = store.read(path, offset, length);
    const auto t1 = Clock::now();
    if (!r.ok) {
      std::fprintf(stderr, "bench_agent: read failed: %s\n", r.error.c_str());
      std::exit(1);
    }
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  SshTarget target;
  int reads = 200;
  uint32_t length = 64 * 1024;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--ssh-config") target.ssh_config = v;
    else if (a == "--host") target.host = v;
    else if (a == "--remote-tvis") target.remote_tvis = v;
    else if (a == "--path") target.path = v;
    else if (a == "--via") target.via.push_back(v);
    else if (a == "--reads") reads = std::atoi(v.c_str());
    else if (a == "--length") length = uint32_t(std::atoi(v.c_str()));
    else {
      std::fprintf(stderr, "bench_agent: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (target.host.empty() || target.path.empty()) {
    std::fprintf(stderr, "usage: bench_agent --host HOST --path RUNS_DIR [--ssh-config F] [--remote-tvis T] [--reads N] [--length B]\n");
    return 2;
  }
  auto local = open_local_store(target.path);
  if (!local.ok) {
    std::fprintf(stderr, "bench_agent: %s\n", local.error.c_str());
    return 1;
  }
  auto list = local.value->list();
  const size_t at = list.value.find("\"path\":\"");
  if (!list.ok || at == std::string::npos) {
    std::fprintf(stderr, "bench_agent: no run in %s\n", target.path.c_str());
    return 1;
  }
  const std::string run = list.value.substr(at + 8, list.value.find('"', at + 8) - at - 8);
  const uint64_t size = local.value->stat(run).value.size;

  SshSession ssh(target);
  auto up = ssh.connect();
  if (!up.ok) {
    std::fprintf(stderr, "bench_agent: %s\n", up.error.c_str());
    return 1;
  }
  AgentStore agent([&] { return Outcome<std::vector<std::string>>::good(ssh.agent_argv()); }, ssh.describe(), "");
  auto c = agent.connect();
  if (!c.ok) {
    std::fprintf(stderr, "bench_agent: %s\n", c.error.c_str());
    return 1;
  }
  time_reads(*local.value, run, size, 20, length);  // warm the page cache and the connection
  time_reads(agent, run, size, 20, length);
  const auto l = time_reads(*local.value, run, size, reads, length);
  const auto r = time_reads(agent, run, size, reads, length);
  std::printf("run %s (%llu bytes), %d reads of %u bytes each\n", run.c_str(), (unsigned long long)size, reads, length);
  std::printf("local read:           median %.3f ms, p90 %.3f ms\n", pct(l, 0.5), pct(l, 0.9));
  std::printf("agent over ssh:       median %.3f ms, p90 %.3f ms\n", pct(r, 0.5), pct(r, 0.9));
  std::printf("added per range read: median %.3f ms\n", pct(r, 0.5) - pct(l, 0.5));
  const uint32_t small = 4096;
  const auto ls = time_reads(*local.value, run, size, reads, small);
  const auto rs = time_reads(agent, run, size, reads, small);
  std::printf("added per %u-byte read: median %.3f ms (local %.3f, ssh %.3f)\n", small, pct(rs, 0.5) - pct(ls, 0.5), pct(ls, 0.5),
              pct(rs, 0.5));
  return 0;
}
