"""A CNN with a custom autograd.Function whose backward reads a value with
.item() (data-dependent Python), which vmap cannot batch: Grad-CAM must fall
back to one gradient pass per sample and class. Prints the fidelity_util
step lines and how often that backward ran.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import parse, report


class ClipGrad(torch.autograd.Function):
    """Identity forward; backward scales the gradient down when its norm exceeds 1."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        norm = g.norm().item()
        return g / norm if norm > 1.0 else g


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3, padding=1)
        self.conv2 = nn.Conv2d(6, 6, 3, padding=1)
        self.fc = nn.Linear(6 * 4, 3)

    def forward(self, x):
        a = ClipGrad.apply(F.relu(self.conv1(x)))
        b = F.relu(self.conv2(a))
        return self.fc(F.adaptive_avg_pool2d(b, 2).flatten(1))


def main():
    args = parse()
    torch.manual_seed(args.seed)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(args.steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(torch.randn(4, 3, 8, 8)), torch.randint(0, 3, (4,)))
        loss.backward()
        opt.step()
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
