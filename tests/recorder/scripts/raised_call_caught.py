"""A training loop without a DataLoader that survives a failing forward: the
first batch's forward raises inside a submodule (as an out-of-memory error
would), the script catches it and skips the batch, then trains normally.

Plain Python prints one line per step; `tvis run --steps N` must stop the
script after N optimizer steps as with any script (the failed call must not
leave the recorder believing a module call is still open).
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Flaky(nn.Module):
    def __init__(self):
        super().__init__()
        self.fail_next = True

    def forward(self, x):
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("CUDA out of memory (simulated)")
        return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), Flaky(), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [(torch.randn(8, 16), torch.randint(0, 4, (8,))) for _ in range(args.steps + 1)]
    step = 0
    for x, y in data:
        try:
            out = model(x)
        except RuntimeError as e:
            print("skipped a batch: %s" % e, flush=True)
            continue
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %.8f" % (step, loss.item()), flush=True)
        step += 1


if __name__ == "__main__":
    main()
