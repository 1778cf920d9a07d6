"""Polynomial regression with a hand-written SGD update (no torch.optim).

Mirrors pytorch/examples' regression/main.py: fit y = w . (x, x^2, x^3, x^4) + b
with a single nn.Linear on polynomial features, smooth L1 loss, and the
update written out by hand:
    with torch.no_grad(): for p in model.parameters(): p -= lr * p.grad
followed by model.zero_grad(). Each step draws a fresh random batch.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

POLY_DEGREE = 4


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--lr", type=float, default=0.1)
    args = p.parse_args()
    torch.manual_seed(0)

    w_target = torch.randn(POLY_DEGREE, 1) * 5
    b_target = torch.randn(1) * 5

    def get_batch(batch_size=32):
        x = make_features(torch.randn(batch_size))
        return x, x.mm(w_target) + b_target.item()

    model = nn.Linear(POLY_DEGREE, 1)
    for step in range(args.steps):
        batch_x, batch_y = get_batch()
        loss = F.smooth_l1_loss(model(batch_x), batch_y)
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= args.lr * param.grad
        model.zero_grad()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
