"""The per-call microbenchmark: N tiny module calls a step, where the recorder's
fixed cost per call (hooks, events, captures, tensor records) is all there is.

A chain of --calls nn.Linear(8, 8) layers, each followed by nn.ReLU (so a step
makes 2 x calls + 1 module calls, the Sequential included), on a batch of 4,
SGD. Prints `step k loss L` after every step, like the other bench cases;
bench.py's case `tiny_calls` divides the recorded step's extra time by the
module calls of a step (`per-call` in its output).
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def model_of(calls):
    layers = []
    for _ in range(calls):
        layers += [nn.Linear(8, 8), nn.ReLU()]
    return nn.Sequential(*layers)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--calls", type=int, default=200, help="Linear+ReLU pairs in the chain")
    args = p.parse_args()
    torch.manual_seed(0)
    model = model_of(args.calls)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(args.steps):
        x = torch.randn(4, 8)
        loss = F.mse_loss(model(x), torch.zeros(4, 8))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print("step %d loss %r" % (step, loss.item()), flush=True)


if __name__ == "__main__":
    main()
