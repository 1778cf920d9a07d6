"""torch.multiprocessing.spawn of 2 DDP ranks (gloo, CPU):
`launch_spawn.py STEPS [--bypass] [--fork | --forkserver]`. With --fork
the ranks are started by mp.start_processes(start_method="fork") (as
accelerate's notebook_launcher does on the CPU), with --forkserver by
start_method="forkserver". With --bypass, the first step calls the
model inside the wrapper (`model.module(x)`, a "warm-up" path) on every rank:
its gradients are never all-reduced and the replicas part at step 0."""
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

import launch_report


def train(rank, world, port, steps, bypass):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=world)
    torch.manual_seed(0)
    model = DDP(launch_report.net())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = launch_report.data(rank)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    for step, (xb, yb) in enumerate(loader):
        if step == steps:
            break
        out = model.module(xb) if bypass and step == 0 else model(xb)
        loss = torch.nn.functional.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        launch_report.report(rank, step, loss, model)
    dist.destroy_process_group()


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = (2, port, int(sys.argv[1]), "--bypass" in sys.argv)
    if "--fork" in sys.argv or "--forkserver" in sys.argv:
        mp.start_processes(train, args=args, nprocs=2, start_method=sys.argv[-1][2:])
    else:
        mp.spawn(train, args=args, nprocs=2)
