// distributed_env.h: which rank of which launch this `tvis run` is, read
// from the launcher's environment.
//
//   torchrun / torch.distributed.run: RANK, WORLD_SIZE, LOCAL_RANK; the
//     launch key is TORCHELASTIC_RUN_ID with TORCHELASTIC_RESTART_COUNT, and
//     when the run id is torchrun's default "none", MASTER_ADDR:MASTER_PORT
//     and the host with the launcher's pid (this process's parent: torchrun's
//     agent starts every local rank), which a single-node launch shares.
//   srun (SLURM): SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID; the launch key
//     is SLURM_JOB_ID.SLURM_STEP_ID.
// torchrun's variables win when both are present (torchrun under srun).
// A world of one, or neither set, is a single-process run; a rank outside
// [0, world size) is a problem, not a single process.
#pragma once

#include <string>

namespace tvis::cli {

struct DistributedEnv {
  int rank = 0, world_size = 1, local_rank = 0;
  std::string launcher;    // "torchrun", "srun", or "" for a single process
  std::string launch_key;  // shared by every rank of one launch
  std::string problem;     // the environment names an impossible rank ("" when fine)
  bool distributed() const { return world_size > 1; }
};

DistributedEnv distributed_env_from_environment();

}  // namespace tvis::cli
