"""Images fed to a CNN as raw 0..255 floats: no /255, no normalisation.

Bug (--bug): a CIFAR-shaped colour-image classifier whose loader decodes the
uint8 images with .float() and skips ToTensor's /255 and Normalize, so the
first convolution sees values in the hundreds: huge activations and logits,
a loss in the hundreds at step 0 and Adam spending its first steps undoing
the scale (pytorch forums "forgot to normalize images", "ToTensor vs
torch.from_numpy").
Twin: x / 255, then normalised with the channel mean and std.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--bug", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
MEAN = torch.tensor([0.49, 0.48, 0.45]).view(3, 1, 1)
STD = torch.tensor([0.25, 0.24, 0.26]).view(3, 1, 1)


class ImageSet(Dataset):
    """uint8 images as a decoder returns them: (H, W, C), 0..255."""

    def __init__(self, n=1024):
        base = torch.randint(40, 216, (5, 1, 1, 3)).float()
        self.labels = torch.randint(0, 5, (n,))
        noise = 40 * torch.randn(n, 32, 32, 3)
        self.images = (base[self.labels] + noise).clamp(0, 255).to(torch.uint8)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = self.images[i].permute(2, 0, 1).float()
        if not args.bug:
            x = (x / 255 - MEAN) / STD
        return x, self.labels[i]


loader = DataLoader(ImageSet(), batch_size=32, shuffle=True)
model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
    nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(64 * 8 * 8, 128), nn.ReLU(), nn.Linear(128, 5))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

step = 0
while step < args.steps:
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")
        step += 1
        if step == args.steps:
            break
