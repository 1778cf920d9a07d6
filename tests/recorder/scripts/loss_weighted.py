"""Classification with a class-weighted, label-smoothed cross_entropy: one
loss call per step. Prints each step's loss and a weight digest.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    weight = torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0])
    for step in range(args.steps):
        x, y = torch.randn(8, 16), torch.randint(0, 5, (8,))
        loss = F.cross_entropy(model(x), y, weight=weight, label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        digest = sum(float(p.double().sum()) for p in model.parameters())
        print("step %d loss %.8f weights %.10f" % (step, loss.item(), digest), flush=True)


if __name__ == "__main__":
    main()
