"""A validation pass before training switches the model to eval mode, and nothing switches it back.

Bug (--bug): a CNN with BatchNorm and Dropout. The script checks the
untrained model's validation accuracy first (model.eval() under no_grad) and
then enters the training loop without model.train(): every training forward
runs with Dropout off and BatchNorm normalising with its initial running
statistics (mean 0, var 1) instead of the batch's, which are never updated.
The classic PyTorch mistake (pytorch forums "forgot model.train() after
validation", "BatchNorm running stats not updating").
Twin: model.train() at the top of the training loop.
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
    nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Dropout(0.5), nn.Linear(64 * 8 * 8, 128), nn.ReLU(),
    nn.Dropout(0.5), nn.Linear(128, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=5e-4)
prototypes = torch.randn(10, 3, 32, 32)


def make_batch(n):
    y = torch.randint(0, 10, (n,))
    return prototypes[y] + torch.randn(n, 3, 32, 32), y


val_x, val_y = make_batch(256)


def validate():
    model.eval()
    with torch.no_grad():
        return (model(val_x).argmax(1) == val_y).float().mean().item()


acc = validate()  # sanity check of the untrained model
for step in range(args.steps):
    if not args.bug:
        model.train()
    x, y = make_batch(32)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 9:
        acc = validate()
    print(f"step {step} loss {loss.item():.4f} val_acc {acc:.3f}")
