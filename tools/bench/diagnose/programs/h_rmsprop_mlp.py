"""MLP regression trained with RMSprop lr 1e-3.

Healthy. The classic Keras-era default: RMSprop on an MLP regressor with
standardised features and targets, MSELoss. RMSprop's first step is large
(the square-average starts at zero, so early updates are about lr / sqrt(1 -
alpha) per weight); that is normal.
"""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
# Synthetic regression: a smooth nonlinear function of 16 features plus noise.
n, d = 4096, 16
x = torch.randn(n, d)
w = torch.randn(d)
y = torch.sin(x @ w / 4) + 0.1 * (x[:, :4] ** 2).sum(1) + 0.05 * torch.randn(n)
x = (x - x.mean(0)) / x.std(0)
y = ((y - y.mean()) / y.std()).unsqueeze(1)

model = nn.Sequential(
    nn.Linear(d, 64), nn.Tanh(),
    nn.Linear(64, 64), nn.Tanh(),
    nn.Linear(64, 1),
)
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()

batch_size = 64
perm = torch.randperm(n)
for step in range(args.steps):
    idx = perm[(step * batch_size) % n:][:batch_size]
    optimizer.zero_grad()
    loss = loss_fn(model(x[idx]), y[idx])
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
