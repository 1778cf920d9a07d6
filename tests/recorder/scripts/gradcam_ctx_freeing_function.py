"""A CNN with a custom autograd.Function whose backward frees what it used
from ctx (``del ctx.scale``; it runs once per forward in plain training) and
counts its calls on ctx. Grad-CAM's extra gradient passes run that backward
before the user's: the user's backward must still find ctx as the forward
left it. Prints each step's loss, a weight digest and the count the user's
backward saw.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.scale = 2.0
        ctx.calls = 0
        return x * 2.0

    @staticmethod
    def backward(ctx, g):
        scale = ctx.scale
        del ctx.scale
        ctx.calls += 1
        Net.backward_calls_seen.append(ctx.calls)
        return g * scale


class Net(nn.Module):
    backward_calls_seen = []

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        return self.fc(Scale.apply(self.conv(x)).flatten(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(args.steps):
        x, y = torch.randn(8, 3, 8, 8), torch.randint(0, 3, (8,))
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        Net.backward_calls_seen.clear()
        loss.backward()
        opt.step()
        digest = sum(float(p.double().sum()) for p in model.parameters())
        print("step %d loss %.8f weights %.10f ctx calls %s" % (step, loss.item(), digest,
                                                               Net.backward_calls_seen[-1]), flush=True)


if __name__ == "__main__":
    main()
