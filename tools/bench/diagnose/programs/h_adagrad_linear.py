"""Logistic regression with Adagrad lr 0.1 on wide, sparse-ish features.

Healthy. The click-through-rate style baseline: a single nn.Linear over a
few thousand mostly-zero binary features (hashed one-hots), BCEWithLogitsLoss,
Adagrad, whose per-coordinate step suits rare features. Columns that are
zero in a batch get zero gradient that step; that is how sparse data looks.
"""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
n, d, active = 8192, 2048, 20   # each row has ~20 of 2048 features set
rows = torch.arange(n).repeat_interleave(active)
cols = torch.randint(0, d, (n * active,))
x = torch.zeros(n, d)
x[rows, cols] = 1.0
true_w = torch.randn(d) * 0.5
y = (torch.sigmoid(x @ true_w - 0.2) > torch.rand(n)).float()

model = nn.Linear(d, 1)
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.1)
criterion = nn.BCEWithLogitsLoss()

batch_size = 64
for step in range(args.steps):
    idx = torch.randint(0, n, (batch_size,))
    optimizer.zero_grad()
    loss = criterion(model(x[idx]).squeeze(1), y[idx])
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
