"""Two-stage fine-tune whose "unfreeze" is a no-op attribute.

Bug (--bug): stage 1 trains only the new head with the backbone frozen
(backbone.requires_grad_(False)); stage 2 is meant to unfreeze the backbone
with `model.backbone.requires_grad = True`. On an nn.Module that only sets a
Python attribute: the parameters keep requires_grad=False, their .grad stays
None and AdamW (built over all parameters) skips them for the whole run. The
model trains as a linear probe and nobody notices (pytorch forums "unfreezing
layers has no effect", "module.requires_grad = True doesn't work").
Twin: stage 2 calls model.backbone.requires_grad_(True).
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
HEAD_ONLY_STEPS = 2


class Classifier(nn.Module):
    def __init__(self, classes=6):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 5, padding=2), nn.GroupNorm(4, 16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.GroupNorm(4, 32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, classes))

    def forward(self, x):
        return self.head(self.backbone(x))


model = Classifier()
model.backbone.requires_grad_(False)  # stage 1: head only
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
grid = torch.stack(torch.meshgrid(torch.arange(28.0), torch.arange(28.0), indexing="ij"))
angles = torch.arange(6) * torch.pi / 6  # each class a grating of its own orientation
direction = angles.cos()[:, None, None] * grid[0] + angles.sin()[:, None, None] * grid[1]
templates = torch.sin(0.8 * direction)[:, None]

for step in range(args.steps):
    if step == HEAD_ONLY_STEPS:  # stage 2: fine-tune everything
        if args.bug:
            model.backbone.requires_grad = True
        else:
            model.backbone.requires_grad_(True)
    y = torch.randint(0, 6, (48,))
    x = templates[y] + 0.5 * torch.randn(48, 1, 28, 28)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    trainable = sum(p.requires_grad for p in model.parameters())
    print(f"step {step} loss {loss.item():.4f} trainable_tensors {trainable}")
