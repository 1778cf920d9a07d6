#include "distributed_env.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace tvis::cli {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

/// A non-negative integer variable, or -1 when unset or not a number.
int env_int(const char* name) {
  const std::string v = env(name);
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::atoi(v.c_str());
}

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "";
}

}  // namespace

DistributedEnv distributed_env_from_environment() {
  DistributedEnv d;
  if (env_int("RANK") >= 0 && env_int("WORLD_SIZE") > 0) {
    d.launcher = "torchrun";
    d.rank = env_int("RANK");
    d.world_size = env_int("WORLD_SIZE");
    d.local_rank = std::max(0, env_int("LOCAL_RANK"));
    const std::string run_id = env("TORCHELASTIC_RUN_ID");
    d.launch_key = "torchrun/" + run_id + "/" + env("TORCHELASTIC_RESTART_COUNT");
    if (run_id.empty() || run_id == "none")
      d.launch_key += "/" + env("MASTER_ADDR") + ":" + env("MASTER_PORT") + "/" + host_name() + "/" +
                      std::to_string(getppid());
  } else if (env_int("SLURM_PROCID") >= 0 && env_int("SLURM_NTASKS") > 0) {
    d.launcher = "srun";
    d.rank = env_int("SLURM_PROCID");
    d.world_size = env_int("SLURM_NTASKS");
    d.local_rank = std::max(0, env_int("SLURM_LOCALID"));
    d.launch_key = "srun/" + env("SLURM_JOB_ID") + "." + env("SLURM_STEP_ID");
  }
  if (d.rank >= d.world_size) {
    d.problem = d.launcher + "'s environment gives rank " + std::to_string(d.rank) + " in a world of " +
                std::to_string(d.world_size);
    return d;
  }
  if (d.world_size <= 1) d = DistributedEnv{};
  return d;
}

}  // namespace tvis::cli
