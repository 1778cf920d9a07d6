"""A GRU encoder-decoder forecaster trained with Adam but no optimizer.zero_grad().

Bug (--bug): a seq2seq model forecasting the next 12 values of a multivariate
series from the last 36. The loop calls loss.backward() and optimizer.step()
but never zeroes the gradients, so every step's .grad is the sum of all the
previous steps' gradients: Adam's moments see a running sum, the updates
keep pointing where the early batches pointed and the loss stalls or
oscillates (pytorch forums "why do we need to call zero_grad()", a frequent
beginner bug and a TrainCheck case).
Twin: optimizer.zero_grad() before backward.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
IN_LEN, OUT_LEN, FEATURES = 36, 12, 4


class Seq2Seq(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.encoder = nn.GRU(FEATURES, hidden, batch_first=True)
        self.decoder = nn.GRUCell(FEATURES, hidden)
        self.proj = nn.Linear(hidden, FEATURES)

    def forward(self, past):
        _, h = self.encoder(past)
        h, value, outputs = h[0], past[:, -1], []
        for _ in range(OUT_LEN):  # autoregressive decoding
            h = self.decoder(value, h)
            value = self.proj(h)
            outputs.append(value)
        return torch.stack(outputs, 1)


def batch(n=32):
    t = torch.arange(IN_LEN + OUT_LEN).float()
    period = 8 + 16 * torch.rand(n, 1, FEATURES)
    series = torch.sin(2 * torch.pi * t[None, :, None] / period + 6.28 * torch.rand(n, 1, FEATURES))
    series = series + 0.05 * torch.randn_like(series)
    return series[:, :IN_LEN], series[:, IN_LEN:]


model = Seq2Seq()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(args.steps):
    past, future = batch()
    loss = F.mse_loss(model(past), future)
    if not args.bug:
        optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
