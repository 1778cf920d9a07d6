"""A small CNN on scikit-learn's bundled 8x8 digits (no download).

torchvision transforms + a Dataset + a DataLoader, dropout, Adam, a step LR
scheduler. Prints `step N loss L` with repr(loss.item()) for every step.

    python examples/digits_cnn.py [--epochs 2] [--batch-size 32] [--seed 0]
    tvis run --steps 3 examples/digits_cnn.py --epochs 2
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


class Digits(Dataset):
    """The 1797 digits as 1x16x16 float images, labels 0..9."""

    def __init__(self, transform):
        d = load_digits()
        self.images = (d.images / 16.0).astype(np.float32)  # 8x8 in [0, 1]
        self.labels = d.target.astype(np.int64)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = torch.from_numpy(self.images[i]).unsqueeze(0)
        return self.transform(x), int(self.labels[i])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.drop = nn.Dropout(0.25)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = self.drop(torch.flatten(x, 1))
        return self.fc2(F.relu(self.fc1(x)))


def train(args):
    torch.manual_seed(args.seed)
    tf = transforms.Compose([
        transforms.Resize((16, 16), antialias=True),
        transforms.RandomRotation(10),
        transforms.Normalize((0.3,), (0.4,)),
    ])
    loader = DataLoader(Digits(tf), batch_size=args.batch_size, shuffle=True)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)
    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            sched.step()
            print("step %d loss %r" % (step, loss.item()), flush=True)
            step += 1
            if args.max_steps and step >= args.max_steps:
                return model
    return model


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=0)
    train(p.parse_args())
