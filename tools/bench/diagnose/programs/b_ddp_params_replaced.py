"""DDP whose classification head is swapped after wrapping: its gradients are never all-reduced.

Bug (--bug): a tabular encoder pretrained for one task is wrapped in
DistributedDataParallel, then the script swaps the head for the downstream
task's classes (model.module.head = nn.Linear(...)). DDP registered its
gradient hooks on the parameters it saw at construction, so the new head's
gradients stay local to each rank and each rank steps its own head; the old
head never gets a gradient, so DDP raises "Expected to have finished
reduction..." until find_unused_parameters=True is set, as the message
suggests, which silences it. The ranks' heads drift apart from step 0
(pytorch forums "DDP parameters not synchronized after replacing a layer";
the DDP notes say not to change parameters after wrapping).
Twin: the head is swapped before the model is wrapped.
Run with 2 processes (torchrun / tvis run --nproc-per-node 2), gloo backend.
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo")
torch.manual_seed(0)

x = torch.randn(2048, 40)
y = (x[:, :5].argmax(1) + (x[:, 5] > 1).long()) % 5
dataset = TensorDataset(x, y)
sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=0)
loader = DataLoader(dataset, batch_size=64, sampler=sampler, drop_last=True)


class TabularNet(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(40, 128), nn.GELU(), nn.LayerNorm(128),
                                     nn.Linear(128, 128), nn.GELU())
        self.head = nn.Linear(128, classes)

    def forward(self, inp):
        return self.head(self.encoder(inp))


model = TabularNet(classes=20)  # the pretraining task's 20 classes (checkpoint load elided)
if not args.bug:
    model.head = nn.Linear(128, 5)  # the downstream task's head, before wrapping
ddp = DDP(model, find_unused_parameters=True)
if args.bug:
    ddp.module.head = nn.Linear(128, 5)  # swapped after wrapping: DDP never sees it
optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)

step, epoch = 0, 0
while step < args.steps:
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        loss = F.cross_entropy(ddp(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}")
        step += 1
        if step == args.steps:
            break
    epoch += 1

dist.barrier()
dist.destroy_process_group()
