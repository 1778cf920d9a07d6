"""Parametrized layers: orthogonal and weight_norm via torch.nn.utils.parametrizations.

Mirrors models that constrain weights with parametrizations (orthogonal
recurrent/hidden maps, weight-normalised layers as in WaveNet-style or
GAN code): the optimizer sees the parametrizations' `original` tensors, not
the weights the forward uses, and the loop zeroes gradients in place with
zero_grad(set_to_none=False). Plain SGD with momentum.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    model = nn.Sequential(
        parametrizations.weight_norm(nn.Linear(16, 32)), nn.Tanh(),
        parametrizations.orthogonal(nn.Linear(32, 32)), nn.Tanh(),
        parametrizations.weight_norm(nn.Linear(32, 1)))

    x = torch.randn(512, 16)
    y = torch.sin(x[:, :1]) + 0.5 * x[:, 1:2] * x[:, 2:3]
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    for step in range(args.steps):
        idx = torch.randint(0, len(x), (64,))
        loss = F.mse_loss(model(x[idx]), y[idx])
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
