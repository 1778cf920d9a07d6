"""A LeNet-style CNN trained with SGD at lr 5.0, a typo for 0.05.

Bug (--bug): the learning rate in the config reads 5.0 instead of 0.05. The
first SGD step moves the weights by many times their own norm, the logits
explode and the loss goes to NaN within a few steps (pytorch forums "loss
becomes nan after a few iterations", "lr too high").
Twin: lr 0.05.
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
config = {"lr": 5.0 if args.bug else 0.05, "momentum": 0.9, "batch_size": 64}


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x.flatten(1))))))


model = LeNet()
optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])
digits = (torch.rand(10, 1, 28, 28) > 0.7).float()  # each class a fixed stroke pattern

for step in range(args.steps):
    y = torch.randint(0, 10, (config["batch_size"],))
    x = (digits[y] + 0.3 * torch.randn(len(y), 1, 28, 28) - 0.3) / 0.5
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
