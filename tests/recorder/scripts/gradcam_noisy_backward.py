"""A CNN with a custom autograd.Function whose backward draws random numbers
(gradient noise from the global torch generator) and Dropout in the forward.
Grad-CAM's extra gradient passes run that backward too; the script's random
stream, and so its losses and weights, must be as without tvis. Prints each
step's loss, a weight digest and the next number of the torch stream.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class GradNoise(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g + 0.01 * torch.randn_like(g)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        return self.fc(self.drop(GradNoise.apply(F.relu(self.conv(x)))).flatten(1))


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
        loss.backward()
        opt.step()
        digest = sum(float(p.double().sum()) for p in model.parameters())
        print("step %d loss %.8f weights %.10f next %.8f" % (step, loss.item(), digest,
                                                           torch.rand(1, generator=None).item()), flush=True)


if __name__ == "__main__":
    main()
