"""Module names when ids are reused: the script first runs a few throwaway
models (a shape check under no_grad, then freed), then trains another model.
Python reuses the freed modules' ids; the trained model's modules must be
recorded under their own paths (enc, act, head).
"""
import argparse
import gc

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(16, 16)
        self.act = nn.ReLU()
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.act(self.enc(x)))


def shape_check():
    probe = nn.Sequential(*[nn.Linear(16, 16) for _ in range(20)])
    with torch.no_grad():
        probe(torch.randn(2, 16))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    for _ in range(5):
        shape_check()
        gc.collect()
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(args.steps):
        x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.8f" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
