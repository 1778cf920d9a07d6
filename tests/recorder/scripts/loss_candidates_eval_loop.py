"""Losses computed with grad enabled but never backpropagated (an evaluation
loop that forgot torch.no_grad) must not be kept alive by the recorder.

Prints, per training step, the loss and how many of the evaluation losses of
that step are still alive after the loop (0 in plain Python: each graph is
freed when the next batch replaces it).
"""
import argparse
import gc
import weakref

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--evals", type=int, default=40)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    for step in range(args.steps):
        refs = []
        for _ in range(args.evals):  # evaluation with grad enabled, no backward
            out = model(x)
            refs.append(weakref.ref(F.cross_entropy(out, y)))
            refs.append(weakref.ref(crit(out, y)))
        gc.collect()
        alive = sum(r() is not None for r in refs)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        print("step %d loss %.8f alive %d" % (step, loss.item(), alive), flush=True)


if __name__ == "__main__":
    main()
