"""DistributedDataParallel on 2 CPU ranks (gloo) with a DistributedSampler.

Mirrors the standard torchrun + DDP recipe: RANK / WORLD_SIZE come from the
environment torchrun sets, every rank seeds identically so the initial
weights agree (DDP also broadcasts rank 0's), a DistributedSampler gives
each rank its own shard of a TensorDataset, and DDP all-reduces gradients
in backward. Run: torchrun --nproc-per-node 2 s_ddp_mlp.py
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo")
    torch.manual_seed(0)  # same seed everywhere: identical data and initial weights

    x = torch.randn(1024, 16)
    y = (x[:, :3].sum(dim=1) > 0).long()
    dataset = TensorDataset(x, y)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)

    model = DDP(nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 2)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    step, epoch = 0, 0
    while step < args.steps:
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if rank == 0:
                print(f"step {step} loss {loss.item():.4f}", flush=True)
            step += 1
            if step == args.steps:
                break
        epoch += 1

    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
