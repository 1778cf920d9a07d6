"""Full-batch LBFGS (lr 1, max_iter 20) with a closure on a small MLP regressor.

Healthy. The standard LBFGS recipe from torch.optim's docs: define a closure
that zeroes grads, computes the loss and calls backward; each
optimizer.step(closure) runs up to 20 inner iterations, so the closure (and
backward) is called many times per step and the loss can drop a lot per step.
"""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
# Fit a noisy cubic on [-2, 2].
x = torch.linspace(-2, 2, 256).unsqueeze(1)
y = x ** 3 - 2 * x + 0.1 * torch.randn_like(x)

model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                      nn.Linear(32, 1))
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=20,
                              history_size=10, line_search_fn="strong_wolfe")
loss_fn = nn.MSELoss()


def closure():
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    return loss


for step in range(args.steps):
    loss = optimizer.step(closure)
    print(f"step {step} loss {loss.item():.4f}")
