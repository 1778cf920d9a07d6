"""Gradient accumulation over 4 micro-batches with Adam.

Mirrors the usual large-effective-batch loop: each micro-batch's loss is
divided by the number of accumulation steps, backward() runs on every
micro-batch, and optimizer.step() + zero_grad() run once every 4
micro-batches (one optimizer step = one printed line).
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

ACCUM = 4


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    model = nn.Sequential(nn.Linear(24, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 5))
    x = torch.randn(1024, 24)
    y = (x @ torch.randn(24, 5)).argmax(dim=1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8, shuffle=True)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    step, running = 0, 0.0
    opt.zero_grad()
    while step < args.steps:
        for i, (xb, yb) in enumerate(loader):
            loss = F.cross_entropy(model(xb), yb) / ACCUM
            loss.backward()
            running += loss.item()
            if (i + 1) % ACCUM == 0:
                opt.step()
                opt.zero_grad()
                print(f"step {step} loss {running:.4f}", flush=True)
                step, running = step + 1, 0.0
                if step == args.steps:
                    break


if __name__ == "__main__":
    main()
