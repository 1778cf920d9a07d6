"""A small classifier with dropout, deterministic on CPU, for `tvis diff`
(tests/recorder/test_diff.py): the same arguments twice give the same run;
--dropout-seed changes only the random numbers dropout draws (the data are
not shuffled and the weights are drawn before the seed is set); --perturb
NAME scales one layer's initial weights by 1.001."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 32)
        self.drop = nn.Dropout(0.3)
        self.fc2 = nn.Linear(32, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        x = self.drop(F.relu(self.fc1(x)))
        return self.head(F.relu(self.fc2(x)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--dropout-seed", type=int, default=0)
    ap.add_argument("--perturb", default="")
    args = ap.parse_args()
    torch.manual_seed(0)
    x = torch.randn(256, 12)
    y = x[:, :4].argmax(dim=1)
    model = Net()
    if args.perturb:
        with torch.no_grad():
            getattr(model, args.perturb).weight.mul_(1.001)
    torch.manual_seed(1000 + args.dropout_seed)  # from here on only dropout draws random numbers
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=False)
    step = 0
    for xb, yb in loader:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.6f" % (step, loss.item()), flush=True)
        step += 1
        if step >= args.steps:
            break


if __name__ == "__main__":
    main()
