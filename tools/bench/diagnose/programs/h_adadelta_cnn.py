"""PyTorch's examples/mnist/main.py shape: Adadelta lr=1.0, StepLR per epoch.

Healthy. Net is the example's Conv(1,32)-Conv(32,64)-maxpool-dropout-fc-
dropout-fc with log_softmax + nll_loss, trained with Adadelta at its default
lr 1.0 and StepLR(step_size=1, gamma=0.7) stepped once per epoch. Images are
synthetic, normalised with the example's MNIST mean/std (0.1307, 0.3081);
each "epoch" is a short pass over a small synthetic train set.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
args = parser.parse_args()

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = torch.flatten(self.dropout1(x), 1)
        x = self.dropout2(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)


# Synthetic MNIST-like pixels in [0, 1]: class templates + noise, then Normalize.
labels = torch.randint(0, 10, (256,))
templates = torch.rand(10, 1, 28, 28)
pixels = (0.7 * templates[labels] + 0.3 * torch.rand(256, 1, 28, 28)).clamp(0, 1)
images = (pixels - 0.1307) / 0.3081
train_loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True)

model = Net()
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)

step = 0
while step < args.steps:
    model.train()
    for data, target in train_loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")
        step += 1
        if step >= args.steps:
            break
    scheduler.step()
