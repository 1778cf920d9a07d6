"""Small CNN on synthetic 1x28x28 images, Adam lr 1e-3.

Healthy. The usual MNIST-style classifier (Conv-ReLU-Pool x2, two Linear
layers) with inputs normalised by Normalize((0.5,), (0.5,)), as in most
Fashion-MNIST and MNIST tutorials.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 7 * 7, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


# Synthetic Fashion-MNIST-like pixels in [0, 1] (class templates + noise),
# then transforms.Normalize((0.5,), (0.5,)).
templates = torch.rand(10, 1, 28, 28)
def batch(size=32):
    labels = torch.randint(0, 10, (size,))
    pixels = (0.7 * templates[labels] + 0.3 * torch.rand(size, 1, 28, 28)).clamp(0, 1)
    return (pixels - 0.5) / 0.5, labels


model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
model.train()
for step in range(args.steps):
    images, labels = batch()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
