"""MLP classifier trained with SGD (momentum 0.9, lr 0.05) from a DataLoader.

Healthy. Mirrors the ordinary "tabular classifier" loop of PyTorch's
beginner tutorials: TensorDataset + DataLoader(shuffle=True), Linear-ReLU
stack, CrossEntropyLoss, zero_grad / backward / step.
"""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)
# Synthetic 4-class problem: labels from a fixed random linear teacher.
n, d, classes = 2048, 32, 4
x = torch.randn(n, d)
teacher = torch.randn(d, classes)
y = (x @ teacher).argmax(dim=1)
loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)

model = nn.Sequential(
    nn.Linear(d, 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, classes),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()

step = 0
while step < args.steps:
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")
        step += 1
        if step >= args.steps:
            break
