"""Grad-CAM reference case: a Sequential CNN with BatchNorm in train mode
(batch 6 couples the samples), a DataLoader without shuffling, the
nn.CrossEntropyLoss module (not F.cross_entropy), SGD. With --norm group,
GroupNorm instead (each sample normalised alone: the rows never mix).

--cam-dump DIR saves, before each step's forward, the model's state and the
batch (step<k>.pt) so a test can recompute Grad-CAM independently.
Prints the fidelity_util step lines.
"""
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from fidelity_util import parse, report


def build(norm="batch"):
    def norm_of(c):
        return nn.BatchNorm2d(c) if norm == "batch" else nn.GroupNorm(2, c)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), norm_of(8), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1), norm_of(8), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), norm_of(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(64, 5))


def main():
    args = parse(lambda p: (p.add_argument("--cam-dump", default=""),
                            p.add_argument("--norm", choices=("batch", "group"), default="batch")))
    torch.manual_seed(args.seed)
    g = torch.Generator().manual_seed(args.seed + 1)
    data = TensorDataset(torch.randn(6 * args.steps, 3, 12, 12, generator=g),
                         torch.randint(0, 5, (6 * args.steps,), generator=g))
    model = build(args.norm)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for step, (x, y) in enumerate(DataLoader(data, batch_size=6)):
        if args.cam_dump:
            os.makedirs(args.cam_dump, exist_ok=True)
            torch.save({"state": model.state_dict(), "x": x, "y": y},
                       os.path.join(args.cam_dump, "step%d.pt" % step))
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
