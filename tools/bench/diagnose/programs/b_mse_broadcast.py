"""Regression whose MSE broadcasts (N, 1) against (N,): the loss is over N x N pairs.

Bug (--bug): a 1-D CNN forecasting the next value of a sensor window. The
model outputs shape (N, 1), the targets are shape (N,), and F.mse_loss
broadcasts them to (N, N): every prediction is compared with every target of
the batch, so the gradient pulls each output to the batch mean and the model
learns nothing per sample. torch only warns ("Using a target size that is
different to the input size"), and the warning is easy to lose in a log
(pytorch forums and StackOverflow "model predicts the same value for every
input", the MSELoss broadcasting warning).
Twin: the target is unsqueezed to (N, 1).
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

model = nn.Sequential(
    nn.Conv1d(3, 32, 5, padding=2), nn.ReLU(),
    nn.Conv1d(32, 32, 5, padding=2), nn.ReLU(),
    nn.AdaptiveAvgPool1d(8), nn.Flatten(),
    nn.Linear(256, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def batch(n=64, length=48):
    t = torch.arange(length + 1).float()
    freq = 0.1 + 0.3 * torch.rand(n, 1)
    phase = 6.28 * torch.rand(n, 1)
    wave = torch.sin(freq * t + phase)
    channels = torch.stack([wave, torch.cos(freq * t + phase), freq.expand_as(wave)], 1)
    x = channels[:, :, :-1] + 0.05 * torch.randn(n, 3, length)
    return x, wave[:, -1]  # targets: shape (N,)


for step in range(args.steps):
    x, target = batch()
    pred = model(x)  # shape (N, 1)
    if not args.bug:
        target = target.unsqueeze(1)
    loss = F.mse_loss(pred, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
