"""Forwards that do and do not reach a backward: each step first runs 5
"probe" forwards with autograd on whose outputs are discarded (a sloppy
evaluation), then two micro-batches, each with its own backward (gradient
accumulation), then one optimizer step. The model calls conv2 twice per
forward (shared weights). Prints the fidelity_util step lines.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from fidelity_util import parse, report


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3, padding=1)
        self.conv2 = nn.Conv2d(6, 6, 3, padding=1)
        self.fc = nn.Linear(6 * 4, 3)

    def forward(self, x):
        a = F.relu(self.conv1(x))
        b = F.relu(self.conv2(a))
        c = self.conv2(b)
        return self.fc(F.adaptive_avg_pool2d(c, 2).flatten(1))


def main():
    args = parse()
    torch.manual_seed(args.seed)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(args.steps):
        for _ in range(5):
            model(torch.randn(4, 3, 8, 8))
        opt.zero_grad()
        total = 0.0
        for _ in range(2):
            loss = F.cross_entropy(model(torch.randn(4, 3, 8, 8)), torch.randint(0, 3, (4,))) / 2
            loss.backward()
            total += loss.item()
        opt.step()
        report(args, model, step, torch.tensor(total))


if __name__ == "__main__":
    main()
