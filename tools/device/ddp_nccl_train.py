"""DDP on CUDA with the nccl backend (tests/recorder/scripts/ddp_train.py on
the GPU): an MLP wrapped in DistributedDataParallel, each rank on its own
random batches (seeded by rank), SGD + momentum. Started by torchrun (RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT). Every rank uses GPU
LOCAL_RANK % device_count (so two ranks may share the one GPU, where NCCL
allows it). Prints per rank each step's loss, weights digest and time (train_util.py).
TVIS_GPU_CHECK_CPU=1: on the CPU with gloo (gpu_fidelity.py --cpu, a dry run)."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from train_util import on_cpu, parse_args, train_step


def main():
    args = parse_args()
    cpu = on_cpu()
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
        train_step(step, model, opt, x, y, dev)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
