"""A small convolutional classifier with BatchNorm (and no dropout), for the
mode check of `tvis diagnose` (tests/recorder/test_diagnose_batchnorm.py).
After every step it evaluates the batch under no_grad with model.eval(),
then model.train(). --bug:
  healthy     as above: every training forward runs in train mode;
  eval_left   model.train() is never called after the evaluation: from the
              second step on the model trains in eval mode (BatchNorm
              normalises with its running statistics);
  frozen_bn   bn1.eval() is called once before training (a submodule frozen
              by hand: the rest of the model trains in train mode)."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn


# Convolutions without bias: BatchNorm after them cancels a bias (its gradient
# is zero), as is usual.
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        return self.head(x.mean(dim=(2, 3)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--bug", default="healthy", choices=["healthy", "eval_left", "frozen_bn"])
    args = ap.parse_args()
    torch.manual_seed(0)
    model = Net()
    if args.bug == "frozen_bn":
        model.bn1.eval()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(args.steps):
        xb = torch.randn(16, 3, 8, 8)
        yb = torch.randint(0, 4, (16,))
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.6f" % (step, loss.item()), flush=True)
        model.eval()
        with torch.no_grad():
            model(xb[:4])
        if args.bug != "eval_left":
            model.train()
            if args.bug == "frozen_bn":
                model.bn1.eval()


if __name__ == "__main__":
    main()
