"""A CNN whose middle block runs under torch.utils.checkpoint, reentrant
(--mode reentrant, 1.13's default) or not (--mode nonreentrant), with dropout
inside the block so the recomputation's RNG matters. Prints the fidelity_util
step lines.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from fidelity_util import parse, report


class Net(nn.Module):
    def __init__(self, reentrant):
        super().__init__()
        self.reentrant = reentrant
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.block = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.Dropout(0.2))
        self.conv3 = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4, 4)

    def forward(self, x):
        a = F.relu(self.conv1(x))
        b = checkpoint(self.block, a, use_reentrant=self.reentrant)
        c = F.relu(self.conv3(b))
        return self.fc(F.adaptive_avg_pool2d(c, 2).flatten(1))


def main():
    args = parse(lambda p: p.add_argument("--mode", choices=["reentrant", "nonreentrant"], default="reentrant"))
    torch.manual_seed(args.seed)
    model = Net(args.mode == "reentrant")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(args.steps):
        x = torch.randn(4, 3, 8, 8)
        y = torch.randint(0, 4, (4,))
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        report(args, model, step, loss)


if __name__ == "__main__":
    main()
