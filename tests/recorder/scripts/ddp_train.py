"""DDP on CPU with gloo: an MLP wrapped in DistributedDataParallel, each rank
on its own random batches (seeded by rank), SGD. Prints, per rank, `step k
loss L weights D`. Started by torchrun (RANK, WORLD_SIZE, MASTER_ADDR/PORT)
or by srun (SLURM_PROCID, SLURM_NTASKS; MASTER_ADDR/PORT given), as users'
scripts do. --fail-rank R --fail-step S: rank R raises as step S begins."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from fidelity_util import parse, report


def main():
    args = parse(lambda p: (p.add_argument("--fail-rank", type=int, default=-1),
                            p.add_argument("--fail-step", type=int, default=-1)))
    if "RANK" not in os.environ and "SLURM_PROCID" in os.environ:
        os.environ["RANK"], os.environ["WORLD_SIZE"] = os.environ["SLURM_PROCID"], os.environ["SLURM_NTASKS"]
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(args.seed)  # the same initial weights on every rank
    model = DDP(nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = torch.Generator().manual_seed(1000 + rank)
    for step in range(args.steps):
        if rank == args.fail_rank and step == args.fail_step:
            raise RuntimeError("rank %d fails at step %d" % (rank, step))
        x = torch.randn(16, 20, generator=data)
        y = torch.randint(0, 5, (16,), generator=data)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        report(args, model, step, loss)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
