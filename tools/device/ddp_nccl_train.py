"""DDP on CUDA with the nccl backend (tests/recorder/scripts/ddp_train.py on
the GPU): an MLP wrapped in DistributedDataParallel, each rank on its own
random batches (seeded by rank), SGD + momentum. Started by torchrun (RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT). Every rank uses GPU
LOCAL_RANK % device_count (so two ranks may share the one GPU, where NCCL
allows it). Prints per rank `step k loss L weights D`, then `timing k ms`.
TVIS_GPU_CHECK_CPU=1: on the CPU with gloo (gpu_fidelity.py --cpu, a dry run)."""
import argparse
import hashlib
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def digest(model):
    h = hashlib.sha256()
    for name, p in model.named_parameters():
        h.update(name.encode())
        h.update(p.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:32]


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    cpu = os.environ.get("TVIS_GPU_CHECK_CPU") == "1"
    if cpu:
        dev = torch.device("cpu")
    else:
        gpu = int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count()
        torch.cuda.set_device(gpu)
        dev = torch.device("cuda", gpu)
    dist.init_process_group("gloo" if cpu else "nccl")
    rank = dist.get_rank()
    torch.manual_seed(args.seed)  # the same initial weights on every rank
    net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)).to(dev)
    model = DDP(net) if cpu else DDP(net, device_ids=[dev.index])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = torch.Generator().manual_seed(1000 + rank)
    for step in range(args.steps):
        x = torch.randn(16, 20, generator=data).to(dev)
        y = torch.randint(0, 5, (16,), generator=data).to(dev)
        sync(dev)
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sync(dev)
        ms = (time.perf_counter() - t0) * 1e3
        print("step %d loss %r weights %s" % (step, loss.item(), digest(model)), flush=True)
        print("timing %d %.3f" % (step, ms), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
