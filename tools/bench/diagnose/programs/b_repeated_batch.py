"""`next(iter(loader))` inside the step loop: the same first batch every step.

Bug (--bug): a tabular MLP trained for a fixed number of steps; the loop
takes its batch with `x, y = next(iter(loader))`, which builds a fresh
iterator every step. With shuffle=False (the data is "already shuffled") the
fresh iterator always starts at the same first batch, so the model fits one
batch of 64 samples and the training loss drops to near zero while
validation does not move (StackOverflow "next(iter(dataloader)) returns the
same batch", pytorch forums "loss goes to zero but model doesn't learn").
Twin: one iterator, re-created only when an epoch ends.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)

x_all = torch.randn(3000, 20)
y_all = ((x_all[:, :3] ** 2).sum(1) + x_all[:, 3] > 3.5).long() + (x_all[:, 4] > 1).long()
loader = DataLoader(TensorDataset(x_all, y_all), batch_size=64, shuffle=False)

model = nn.Sequential(nn.Linear(20, 128), nn.BatchNorm1d(128), nn.ReLU(),
                      nn.Linear(128, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)

batches = iter(loader)
for step in range(args.steps):
    if args.bug:
        x, y = next(iter(loader))
    else:
        try:
            x, y = next(batches)
        except StopIteration:
            batches = iter(loader)
            x, y = next(batches)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
