"""A model with a custom autograd.Function and hooks, trained with Adam.

Mirrors research code that hand-writes an activation's backward (a custom
GELU as a torch.autograd.Function), keeps activations with a
register_forward_hook (for logging or feature extraction) and logs an
intermediate gradient's norm with a tensor hook (register_hook).
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ErfGELU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        cdf = 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))
        pdf = torch.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
        return grad_out * (cdf + x * pdf)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.out = nn.Linear(20, 64), nn.Linear(64, 64), nn.Linear(64, 3)
        self.grad_norms = []

    def forward(self, x):
        h = ErfGELU.apply(self.fc1(x))
        if h.requires_grad:
            h.register_hook(lambda g: self.grad_norms.append(g.norm().item()))
        return self.out(ErfGELU.apply(self.fc2(h)))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    model = Net()
    activations = {}
    model.fc2.register_forward_hook(lambda mod, inp, out: activations.__setitem__("fc2", out.detach()))
    x = torch.randn(400, 20)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    for step in range(args.steps):
        idx = torch.randint(0, len(x), (32,))
        loss = F.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f} fc2_act_mean {activations['fc2'].mean().item():.4f} "
              f"h_grad_norm {model.grad_norms[-1]:.4f}", flush=True)


if __name__ == "__main__":
    main()
