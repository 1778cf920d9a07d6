"""CIFAR-style CNN trained with SGD + OneCycleLR stepped per batch.

Healthy. The fast-CIFAR recipe (super-convergence): a Conv-BN-ReLU network,
SGD with Nesterov momentum and weight decay, OneCycleLR(max_lr=0.1) over the
whole run, scheduler.step() after every optimizer.step() (per batch, as
OneCycleLR requires; it also cycles momentum). Images are synthetic 3x32x32,
normalised with CIFAR-10's per-channel mean and std.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.lr_scheduler import OneCycleLR

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


model = nn.Sequential(
    conv_bn(3, 32), nn.MaxPool2d(2),        # 16x16
    conv_bn(32, 64), nn.MaxPool2d(2),       # 8x8
    conv_bn(64, 64), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(64, 10),
)

# Synthetic CIFAR-like pixels in [0, 1], normalised with CIFAR-10's channel statistics.
templates = torch.rand(10, 3, 32, 32)
mean = torch.tensor([0.4914, 0.4822, 0.4465]).view(1, 3, 1, 1)
std = torch.tensor([0.2470, 0.2435, 0.2616]).view(1, 3, 1, 1)
def get_batch(size=32):
    labels = torch.randint(0, 10, (size,))
    pixels = 0.6 * templates[labels] + 0.4 * torch.rand(size, 3, 32, 32)
    return (pixels - mean) / std, labels


optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9,
                            nesterov=True, weight_decay=5e-4)
scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=max(args.steps, 20))
model.train()
for step in range(args.steps):
    images, labels = get_batch()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.4f}")
