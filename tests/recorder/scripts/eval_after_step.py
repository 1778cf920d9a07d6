"""PyTorch's MNIST-example shape with logging after the update: a classifier
trained from a DataLoader; after each optimizer.step() the script computes
the batch's per-sample losses (reduction='none') for logging and runs an
evaluation over a validation DataLoader under no_grad, then prints
    step <k> loss <repr> weights <digest> worst <repr> val <repr>
so the step line exists only if the script ran past its last recorded step's
update, to the next iteration's fetch. An evaluation before training (under
no_grad, on the validation loader) precedes step 0.

With --dump DIR: batch_step<k>.pt holds each step's training inputs.
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from fidelity_util import digest, parse


def evaluate(model, loader):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += F.cross_entropy(model(x), y, reduction="sum").item()
    model.train()
    return total


def main():
    args = parse()
    torch.manual_seed(args.seed)
    train = TensorDataset(torch.randn(96, 1, 8, 8), torch.randint(0, 5, (96,)))
    val = TensorDataset(torch.randn(32, 1, 8, 8), torch.randint(0, 5, (32,)))
    train_loader = DataLoader(train, batch_size=16, shuffle=True)
    val_loader = DataLoader(val, batch_size=16)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(256, 5))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    print("before training val %r" % evaluate(model, val_loader), flush=True)
    step = 0
    while step < args.steps:
        for x, y in train_loader:
            if step >= args.steps:
                break
            if args.dump:
                os.makedirs(args.dump, exist_ok=True)
                torch.save(x, os.path.join(args.dump, "batch_step%d.pt" % step))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            per_sample = F.cross_entropy(model(x), y, reduction="none")
            print("step %d loss %r weights %s worst %r val %r" % (step, loss.item(), digest(model),
                                                                   per_sample.max().item(),
                                                                   evaluate(model, val_loader)), flush=True)
            step += 1


if __name__ == "__main__":
    main()
